//! Faults of the production-shaped stack under load (`npm run test:cluster`, after the acceptance,
//! alone): an API replica SIGKILLed while callers retry through the load balancer with the same
//! Idempotency-Key, one of the two cpu workers SIGKILLed, PostgreSQL down for 15 s, the Temporal
//! server restarted. After each, as `npm run chaos` checks it: every call charged if and only if it
//! answered 200, no hold left, balance = grants - charges.
import test, { type ExecutionContext } from 'ava';
import { testEnv } from '../helpers/env.js';
import { callTool, newAccount } from '../helpers/api.js';
import { runChaos, type ChaosOptions, type ChaosPhase } from '../disruptive/support/chaos-run.js';
import { cheapMix, slowMix } from '../disruptive/support/call-mix.js';
import { formatAudit } from '../disruptive/support/ledger-audit.js';
import { stackControl } from '../disruptive/support/stack-control.js';

const control = () => stackControl(testEnv.stackControlUrl());
const targets = () => ({ pagesUrl: testEnv.fixtures().http.url });
const CPU_TOOLS = ['hash-text', 'qr-generate', 'bcrypt-hash'];

async function chaos(t: ExecutionContext, phase: ChaosPhase, extra: Partial<ChaosOptions>) {
  const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);
  const result = await runChaos({
    apiUrl: testEnv.apiUrl(),
    adminToken: testEnv.adminToken(),
    control: control(),
    mongodbUrl: testEnv.mongodbUrl(),
    temporal: testEnv.temporal(),
    pagesUrl: testEnv.fixtures().http.url,
    calls: 40,
    ratePerSecond: 4,
    phases: [phase],
    idempotentShare: 0.3,
    captures: false,
    seed,
    log: (line) => t.log(line),
    ...extra,
  });
  const retried = result.calls.filter((c) => c.retries);
  t.log(
    `seed ${seed}; ${retried.length} call(s) retried by the client (${retried.reduce((n, c) => n + c.retries!, 0)} retries)\n${formatAudit(result.report)}`,
  );
  t.deepEqual(result.report.mismatches, []);
  t.is(result.report.holdsLeft, 0);
  t.is(result.report.balance, result.report.expectedBalance);
  t.falsy(result.report.answers['500 internal_error'], 'no call answered 500');
  t.falsy(result.report.answers['no answer'], 'every call was answered');
  return result;
}

/** The stack is whole again: a fresh call through the load balancer is answered and charged. */
async function freshCallAnswers(t: ExecutionContext) {
  const account = await newAccount(10, 'after-fault');
  const res = await callTool(account.apiKey, 'hash-text', { text: 'after the fault' });
  t.is(res.status, 200, JSON.stringify(res.body));
}

test('an API replica SIGKILLed mid-load: callers retrying with the same Idempotency-Key through the load balancer get each call answered and charged exactly once', async (t) => {
  // Half the calls stay in flight 3 s, four calls a second: the replica dies with several open.
  const { report, calls } = await chaos(
    t,
    { action: 'kill/api-1', times: 1, gapMs: [4_000, 5_000] },
    {
      idempotentShare: 1,
      retryUnavailable: true,
      mix: [
        ...slowMix(targets()),
        ...cheapMix(targets())
          .filter((e) => e.tool === 'hash-text')
          .map((e) => ({ ...e, weight: 1 })),
      ],
    },
  );
  await control().run('start/api-1');
  t.is(report.answers['200'], calls.length, 'every call answered 200 in the end');
  t.true(
    calls.some((c) => c.retries),
    'some calls were cut by the kill and retried',
  );
  const keys = new Set(calls.map((c) => c.idempotencyKey));
  t.is(new Set(calls.map((c) => c.requestId)).size, keys.size, 'one workflow per Idempotency-Key, whatever the retries');
  t.is(report.charged, keys.size, 'each call charged once');
  await freshCallAnswers(t);
});

test('one of the two cpu workers SIGKILLed mid-load: nothing is lost, the other one serves the pool', async (t) => {
  const { report, calls } = await chaos(
    t,
    { action: 'kill/worker-cpu-1', times: 1, gapMs: [2_000, 3_000] },
    { mix: cheapMix(targets()).filter((e) => CPU_TOOLS.includes(e.tool)) },
  );
  t.is(report.answers['200'], calls.length, 'every call answered 200');
  await freshCallAnswers(t);
  await control().run('start/worker-cpu-1');
});

test('PostgreSQL down for 15 s under load: /readyz says 503 meanwhile, no call is charged without a 200', async (t) => {
  const { readiness } = await chaos(t, { action: 'outage/postgres', times: 1, gapMs: [2_000, 3_000] }, {});
  t.deepEqual(
    readiness,
    [{ action: 'outage/postgres', status: 503 }],
    'GET /readyz through the load balancer says 503 while PostgreSQL is down',
  );
  await freshCallAnswers(t);
});

test('the Temporal server restarted under load: no call is charged without a 200, the stack answers after', async (t) => {
  await chaos(t, { action: 'restart/temporal', times: 1, gapMs: [2_000, 3_000] }, {});
  await freshCallAnswers(t);
});
