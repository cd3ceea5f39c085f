//! The chaos run: mixed tool calls at a fixed rate while parts of the stack are killed and
//! brought back (the workers with SIGKILL at random moments, then Temporal, then the
//! database), followed by the ledger audit of every call. `npm run chaos` runs it in full,
//! test/disruptive/chaos.test.ts in a bounded form.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { addMonthsClamped, periodStart } from '../../../domain/plans/periods.js';
import { ALLOWANCES_SCHEDULE_ID } from '../../../domain/upkeep-schedules.js';
import { atFixedRate } from './arrivals.js';
import { captureMix, cheapMix, seededRandom, weightedPicker, type MixEntry } from './call-mix.js';
import { BATCH_TOOL, batchCounts, batchEnded, followBatch, startBatch } from './batch-client.js';
import { auditCalls, type AuditReport } from './ledger-audit.js';
import type { FaultAction, StackControl } from './stack-control.js';
import { newRecord, sendCall, type CallRecord } from './tool-client.js';
import { auditPurchases, feedPurchases, preparePurchases, type PurchaseFeedOptions } from './purchase-feed.js';
import type { UncheckedJson } from '../../helpers/api.js';
import { temporalConnectOptions, type TemporalSettings } from '../../../lib/config-temporal.js';

export interface ChaosPhase {
  action: FaultAction;
  /** How many times the fault is injected during the phase. */
  times: number;
  /** Pause before each injection, ms: a random value in this range. */
  gapMs: [number, number];
}

export interface ChaosOptions {
  apiUrl: string;
  adminToken: string;
  control: StackControl;
  mongodbUrl: string;
  temporal: TemporalSettings;
  /** Origin of the fixture page server. */
  pagesUrl: string;
  /** Calls in all, spread evenly over the phases (a phase runs on while its faults do). */
  calls: number;
  ratePerSecond: number;
  phases: ChaosPhase[];
  /** Share of calls sent with an Idempotency-Key. */
  idempotentShare: number;
  /** Add a few browser captures to the mix. */
  captures: boolean;
  /** The calls to send instead of the cheap mix (plus captures): e.g. only the cpu pool's tools. */
  mix?: MixEntry[];
  /**
   * Retry an idempotent call at once, with the same key, while it has no answer or a 503
   * `unavailable` (what a client of the load balancer does when a replica dies under it).
   */
  retryUnavailable?: boolean;
  /**
   * Put the account on a plan whose monthly period turns this long into the run (rollover `none`):
   * the first period's allowance, spent first, lapses mid-run and the next one is granted by the
   * allowance schedule, triggered as soon as the period turned (again until it took, whatever is down).
   */
  allowance?: { monthlyAllowance: number; turnAfterMs: number };
  /** A batch of this many hash-text items, made before the first fault and run through all of them. */
  batch?: { items: number };
  /**
   * Purchases whose Stripe events arrive through every fault (support/purchase-feed.ts): this many
   * buyers check out first; their events are posted, retried as Stripe retries, over the calls' time.
   * Needs the stack's STRIPE_WEBHOOK_SECRET (a stack with payments on).
   */
  purchases?: { buyers: number; webhookSecret: string };
  seed: number;
  log: (line: string) => void;
}

export interface ChaosResult {
  report: AuditReport;
  calls: CallRecord[];
  /** Fault injections done, with how long each part took to come back. */
  faults: Array<{ action: FaultAction; backAfterMs: number }>;
  /** What GET /readyz answered in the middle of each outage. */
  readiness: Array<{ action: FaultAction; status?: number }>;
  /** With `allowance`: when the period turned and when its allowance was seen granted. */
  allowance?: { turnedAt: Date; grantedAfterMs: number | null };
}

const CREDITS = 1_000_000;
/** Share of arrivals that repeat an earlier idempotent call, as a client's retry would. */
const RETRY_SHARE = 0.1;
/** When, into an `outage/...` action (15 s down), /readyz is asked. */
const OUTAGE_PROBE_AFTER_MS = 5_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function admin(apiUrl: string, adminToken: string, path: string, body: unknown): Promise<UncheckedJson> {
  const res = await fetch(`${apiUrl}/api/v1/admin${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`POST ${path} for the chaos run: ${res.status} ${await res.text()}`);
  return res.json();
}

async function openAccount(
  apiUrl: string,
  adminToken: string,
  plan?: { id: string; startsAt: Date },
): Promise<{ id: string; apiKey: string; ownerToken: string }> {
  const body = (await admin(apiUrl, adminToken, '/accounts', {
    name: 'chaos',
    credits: CREDITS,
    ...(plan ? { plan: plan.id, planStartsAt: plan.startsAt.toISOString() } : {}),
  })) as { account: { id: string }; apiKey: { key: string }; ownerToken: string };
  return { id: body.account.id, apiKey: body.apiKey.key, ownerToken: body.ownerToken };
}

/**
 * After the period turned: triggers the allowance schedule (as its own 5-minute timer would) and
 * watches the grants until the new period's allowance is there, retrying through whatever is down.
 */
async function awaitAllowance(options: ChaosOptions, ownerToken: string, turnedAt: Date, until: () => boolean): Promise<number | null> {
  await sleep(Math.max(0, turnedAt.getTime() - Date.now()) + 1_000);
  const started = Date.now();
  for (;;) {
    try {
      const connection = await Connection.connect({ ...temporalConnectOptions(options.temporal), connectTimeout: 5_000 });
      try {
        await new Client({ connection, namespace: options.temporal.namespace }).schedule.getHandle(ALLOWANCES_SCHEDULE_ID).trigger();
      } finally {
        await connection.close();
      }
    } catch {
      // Temporal is down or restarting: the next round tries again.
    }
    await sleep(3_000);
    try {
      const res = await fetch(`${options.apiUrl}/api/v1/account/grants?limit=10`, { headers: { authorization: `Bearer ${ownerToken}` } });
      const page = res.ok ? ((await res.json()) as { items: Array<{ reason: string }> }) : { items: [] };
      if (page.items.filter((g) => g.reason === 'monthly_allowance').length >= 2) return Date.now() - turnedAt.getTime();
    } catch {
      // The API is restarting: ask again.
    }
    if (until() && Date.now() - started > 300_000) return null;
  }
}

/**
 * A call whose connection failed has no answer. With an Idempotency-Key the client can learn it
 * by asking again (the same key, tool and body return the first call's outcome, charged once);
 * without one it cannot, and the audit counts any charge no 200 accounts for as a mismatch.
 */
async function reask(apiUrl: string, apiKey: string, calls: CallRecord[], log: (line: string) => void): Promise<void> {
  for (const call of calls.filter((c) => c.status === undefined && c.idempotencyKey)) {
    for (let attempt = 1; attempt <= 5 && call.status === undefined; attempt++) {
      await sendCall(apiUrl, apiKey, call);
      if (call.status === undefined) await sleep(2_000);
    }
    call.reasked = call.status !== undefined;
    log(`re-asked call ${call.index} (${call.tool}): ${call.status ?? call.failure}`);
  }
}

const UNAVAILABLE_RETRIES = 20;

function unavailable(call: CallRecord): boolean {
  return call.status === undefined || (call.status === 503 && call.code === 'unavailable');
}

/** A client's retries of an idempotent call, 1 s apart (the load balancer's Retry-After). */
async function retryWhileUnavailable(apiUrl: string, apiKey: string, call: CallRecord): Promise<void> {
  if (!call.idempotencyKey) return;
  for (let attempt = 1; attempt <= UNAVAILABLE_RETRIES && unavailable(call); attempt++) {
    await sleep(1_000);
    call.retries = attempt;
    await sendCall(apiUrl, apiKey, call);
  }
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const random = seededRandom(options.seed);
  const targets = { pagesUrl: options.pagesUrl };
  const pick = weightedPicker(options.mix ?? [...cheapMix(targets), ...(options.captures ? captureMix(targets) : [])], random);
  let plan: { id: string; startsAt: Date; turnsAt: Date } | undefined;
  if (options.allowance) {
    const id = `chaos-${options.seed}-${randomUUID().slice(0, 8)}`;
    await admin(options.apiUrl, options.adminToken, '/plans', {
      id,
      name: 'Chaos',
      monthlyAllowance: options.allowance.monthlyAllowance,
      rollover: 'none',
    });
    // Joined about a month ago, so that its second period starts turnAfterMs from now.
    const startsAt = addMonthsClamped(new Date(Date.now() + options.allowance.turnAfterMs), -1);
    plan = { id, startsAt, turnsAt: periodStart(startsAt, 1) };
    options.log(
      `allowance: ${options.allowance.monthlyAllowance} credits a month, rollover none; the period turns at ${plan.turnsAt.toISOString()}`,
    );
  }
  const account = await openAccount(options.apiUrl, options.adminToken, plan);
  const batchId = options.batch && (await startBatch(options.apiUrl, account.apiKey, options.batch.items, `chaos-batch-${options.seed}`));
  if (batchId) options.log(`batch ${batchId}: ${options.batch!.items} ${BATCH_TOOL.name} items, running through every fault`);
  let callsDone = false;
  /** Live reads of the batch whose counts were wrong: it is read twice a second through every fault, until it ended. */
  const wrongCounts: string[] = [];
  const following = batchId ? followBatch(options.apiUrl, account.apiKey, batchId, () => callsDone, wrongCounts) : Promise.resolve();
  const allowanceSeen = plan ? awaitAllowance(options, account.ownerToken, plan.turnsAt, () => callsDone) : Promise.resolve(null);
  const calls: CallRecord[] = [];
  const faults: ChaosResult['faults'] = [];
  const readiness: ChaosResult['readiness'] = [];
  const feed: PurchaseFeedOptions | undefined = options.purchases && {
    apiUrl: options.apiUrl,
    adminToken: options.adminToken,
    webhookSecret: options.purchases.webhookSecret,
    temporal: options.temporal,
    buyers: options.purchases.buyers,
    seed: options.seed,
    log: options.log,
  };
  const bought = feed && (await preparePurchases(feed));
  // Spread over the calls' own time, so that the events meet every fault.
  const feeding =
    feed && bought
      ? feedPurchases(feed, bought.deliveries, Math.max(100, ((options.calls / options.ratePerSecond) * 1000) / bought.deliveries.length))
      : Promise.resolve(undefined);
  if (bought) options.log(`purchases: ${bought.buyers.length} buyers, ${bought.deliveries.length} Stripe deliveries through the faults`);

  for (const [n, phase] of options.phases.entries()) {
    const quota =
      Math.floor(options.calls / options.phases.length) + (n === options.phases.length - 1 ? options.calls % options.phases.length : 0);
    let injecting = true;
    const injector = (async () => {
      try {
        for (let i = 0; i < phase.times; i++) {
          await sleep(phase.gapMs[0] + random() * (phase.gapMs[1] - phase.gapMs[0]));
          const started = performance.now();
          const fault = options.control.run(phase.action);
          // Mid-outage the API must say it is not ready (503), not that it is fine or broken.
          if (phase.action.startsWith('outage/')) {
            await sleep(OUTAGE_PROBE_AFTER_MS);
            const res = await fetch(`${options.apiUrl}/readyz`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
            readiness.push({ action: phase.action, status: res?.status });
          }
          await fault;
          faults.push({ action: phase.action, backAfterMs: Math.round(performance.now() - started) });
          options.log(`  ${phase.action}: back after ${(faults.at(-1)!.backAfterMs / 1000).toFixed(1)} s`);
        }
      } finally {
        injecting = false;
      }
    })();
    options.log(`phase ${n + 1}: ${phase.action} x${phase.times} during ${quota} calls`);
    // Where the batch stands as each fault begins: it runs through them, not before or after.
    if (batchId) options.log(`  batch: ${await batchCounts(options.apiUrl, account.apiKey, batchId, wrongCounts)}`);
    await atFixedRate({ ratePerSecond: options.ratePerSecond, count: quota, maxInFlight: 200, extendWhile: () => injecting }, async () => {
      const earlier = calls.filter((c) => c.idempotencyKey);
      let record: CallRecord;
      if (earlier.length && random() < RETRY_SHARE) {
        // A client retrying an earlier call: same key, tool and body; it must not be charged again.
        const first = earlier[Math.floor(random() * earlier.length)]!;
        record = {
          index: calls.length,
          tool: first.tool,
          cost: first.cost,
          body: first.body,
          idempotencyKey: first.idempotencyKey,
          phase: phase.action,
          firstSentDuring: first.firstSentDuring ?? first.phase,
        };
      } else {
        const idempotent = random() < options.idempotentShare;
        record = newRecord(calls.length, pick(), {
          phase: phase.action,
          ...(idempotent ? { idempotencyKey: `chaos-${randomUUID()}` } : {}),
        });
      }
      calls.push(record);
      await sendCall(options.apiUrl, account.apiKey, record);
      if (options.retryUnavailable) await retryWhileUnavailable(options.apiUrl, account.apiKey, record);
    });
    await injector;
  }

  await reask(options.apiUrl, account.apiKey, calls, options.log);
  const fed = await feeding;
  if (fed) options.log(`purchases: every delivery sent; ${fed.retried} needed Stripe's retries, ${fed.lost} never accepted`);
  if (batchId) await batchEnded(options.apiUrl, account.apiKey, batchId, options.log, wrongCounts);
  callsDone = true;
  await following;
  const grantedAfterMs = await allowanceSeen;
  if (plan)
    options.log(
      `allowance: the next period's allowance was ${grantedAfterMs === null ? 'NOT seen' : `granted ${(grantedAfterMs / 1000).toFixed(1)} s after the turn`}`,
    );
  const report = await auditCalls({
    apiUrl: options.apiUrl,
    ownerToken: account.ownerToken,
    accountId: account.id,
    // The welcome grant, and with a plan its first two periods' allowances.
    grants: CREDITS + (options.allowance ? 2 * options.allowance.monthlyAllowance : 0),
    mongodbUrl: options.mongodbUrl,
    temporal: options.temporal,
    calls,
    ...(batchId ? { batches: [{ id: batchId, apiKey: account.apiKey, cost: BATCH_TOOL.cost }] } : {}),
  });
  report.mismatches.push(...wrongCounts);
  if (feed && bought) {
    if (fed?.lost) report.mismatches.push(`purchases: ${fed.lost} Stripe deliveries were never accepted`);
    report.mismatches.push(...(await auditPurchases(feed, bought.buyers, bought.deliveries)));
  }
  if (plan && grantedAfterMs === null)
    report.mismatches.push(`the allowance of the period that began ${plan.turnsAt.toISOString()} was never granted`);
  return { report, calls, faults, readiness, ...(plan ? { allowance: { turnedAt: plan.turnsAt, grantedAfterMs } } : {}) };
}
