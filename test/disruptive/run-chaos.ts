//! `npm run chaos`: the full chaos run. 200 mixed tool calls (cheap ones mostly, a few captures,
//! 30% with an Idempotency-Key and some client retries of those) at a fixed rate while the
//! workers are SIGKILLed and restarted at random moments, then Temporal (killed, and down for
//! 15 s), then the database (the same);
//! while the account's monthly allowance period turns (its first allowance, spent first, lapses and
//! the next is granted by the allowance schedule), while a batch of 500 hash-text items runs
//! through every fault, and while 20 buyers' purchases arrive as Stripe's signed events
//! (redelivered, refunded, disputed and won, shuffled; each retried as Stripe retries) that must end
//! in exact balances from one grant each; then the ledger audit of every call and of every item of the batch (charged
//! if and only if it succeeded, its counts exact), with each fault's failed calls and what they were told.
//! Exits 1 on any mismatch or any 500 (a fault must cost a retry, a 503 or a 504, never a bug's answer). Against its own test-like stack,
//! or the one STACK_CONTROL_URL and friends describe. CHAOS_CALLS, CHAOS_RATE, CHAOS_SEED, CHAOS_ALLOWANCE_TURN_S, CHAOS_BATCH_ITEMS, CHAOS_BUYERS tune it.
import { runChaos } from './support/chaos-run.js';
import { formatAudit } from './support/ledger-audit.js';
import { stackControl } from './support/stack-control.js';
import { withTestStack } from './support/test-like-stack.js';

const calls = Number(process.env.CHAOS_CALLS ?? 200);
const rate = Number(process.env.CHAOS_RATE ?? 4);
const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);
/** Seconds into the run at which the account's allowance period turns. */
const allowanceTurn = Number(process.env.CHAOS_ALLOWANCE_TURN_S ?? 45);
/** Items of the batch that runs through the faults (0: none). */
const batchItems = Number(process.env.CHAOS_BATCH_ITEMS ?? 500);
/** Buyers whose purchases' Stripe events arrive through the faults (0: none; needs a stack with payments on). */
const buyers = Number(process.env.CHAOS_BUYERS ?? 20);

const failed = await withTestStack('chaos', async (stack) => {
  console.log(`chaos: ${calls} calls at ${rate}/s, seed ${seed}`);
  const started = performance.now();
  const { report, faults, readiness } = await runChaos({
    apiUrl: stack.apiUrl,
    adminToken: stack.adminToken,
    control: stackControl(stack.controlUrl),
    mongodbUrl: stack.mongodbUrl,
    temporal: stack.temporal,
    pagesUrl: stack.pagesUrl,
    calls,
    ratePerSecond: rate,
    phases: [
      // Workers: killed three times, 4-9 s apart (they need a few seconds to poll again).
      { action: 'kill/workers', times: 3, gapMs: [4_000, 9_000] },
      { action: 'kill/temporal', times: 2, gapMs: [2_000, 6_000] },
      // Down for 15 s: past the Temporal client's own retries and the driver's server selection.
      { action: 'outage/temporal', times: 1, gapMs: [2_000, 4_000] },
      { action: 'kill/database', times: 2, gapMs: [2_000, 6_000] },
      { action: 'outage/database', times: 1, gapMs: [2_000, 4_000] },
    ],
    idempotentShare: 0.3,
    captures: true,
    allowance: { monthlyAllowance: 400, turnAfterMs: allowanceTurn * 1000 },
    ...(batchItems > 0 ? { batch: { items: batchItems } } : {}),
    ...(buyers > 0 && stack.stripeWebhookSecret ? { purchases: { buyers, webhookSecret: stack.stripeWebhookSecret } } : {}),
    seed,
    log: (line) => console.log(line),
  });
  console.log(
    `\nchaos: done in ${((performance.now() - started) / 1000).toFixed(0)} s; faults: ${faults.map((f) => `${f.action} (${(f.backAfterMs / 1000).toFixed(1)} s)`).join(', ')}`,
  );
  console.log(`GET /readyz mid-outage: ${readiness.map((r) => `${r.action} ${r.status ?? 'no answer'}`).join(', ')}`);
  console.log(formatAudit(report));
  const answered500 = Object.entries(report.answers).reduce((n, [label, count]) => (label.startsWith('500') ? n + count : n), 0);
  if (answered500 > 0) console.log(`\nchaos: ${answered500} calls answered 500`);
  return report.mismatches.length > 0 || answered500 > 0;
});
process.exit(failed ? 1 : 0);
