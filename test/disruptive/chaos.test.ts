//! Chaos, bounded: mixed tool calls while the workers are SIGKILLed, then Temporal is down for
//! 15 s, then the database is SIGKILLed; afterwards every call is charged if and only if it answered 200, no hold is left
//! and the balance adds up. `npm run chaos` is the full run (support/chaos-run.ts).
import test from 'ava';
import { testEnv } from '../helpers/env.js';
import { callTool, newAccount } from '../helpers/api.js';
import { runChaos } from './support/chaos-run.js';
import { formatAudit } from './support/ledger-audit.js';
import { stackControl } from './support/stack-control.js';

test('calls through a worker crash, a 15 s Temporal outage and a database crash: charged iff 200, no hold left, balance = grants - charges', async (t) => {
  t.timeout(6 * 60_000);
  const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);
  const { report, faults, readiness } = await runChaos({
    apiUrl: testEnv.apiUrl(),
    adminToken: testEnv.adminToken(),
    control: stackControl(testEnv.stackControlUrl()),
    mongodbUrl: testEnv.mongodbUrl(),
    temporal: testEnv.temporal(),
    pagesUrl: testEnv.fixtures().http.url,
    calls: 48,
    ratePerSecond: 3,
    phases: [
      { action: 'kill/workers', times: 1, gapMs: [1_000, 3_000] },
      // Down for 15 s: longer than the Temporal client's own retries, so the API's wait is tested.
      { action: 'outage/temporal', times: 1, gapMs: [1_000, 3_000] },
      { action: 'kill/database', times: 1, gapMs: [1_000, 3_000] },
    ],
    idempotentShare: 0.3,
    captures: false,
    seed,
    log: (line) => t.log(line),
  });
  t.log(`seed ${seed}\n${formatAudit(report)}`);
  t.is(faults.length, 3);
  t.deepEqual(readiness, [{ action: 'outage/temporal', status: 503 }], 'GET /readyz says 503 while Temporal is down');
  t.deepEqual(report.mismatches, []);
  t.is(report.holdsLeft, 0);
  t.is(report.balance, report.expectedBalance);
  t.falsy(report.answers['500 internal_error'], 'no call answered 500');

  // The stack is whole again: a fresh call is answered and charged.
  const after = await newAccount(10, 'after-chaos');
  const res = await callTool(after.apiKey, 'hash-text', { text: 'after the chaos' });
  t.is(res.status, 200);
});
