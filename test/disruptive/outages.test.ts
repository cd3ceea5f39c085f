//! A part of the stack down for a while, a call started meanwhile waits for it and answers 200
//! once it is back, charged once, as long as that is before the call's answer deadline:
//! - the tool's worker pool: the call waits in its pool's queue (the call's whole workflow runs
//!   on the pool); a call taken up later than its deadline ends without reserving
//!   (test/workflows/tool-call-answer-by.test.ts);
//! - the database: the API repeats the key lookup and the call's first writes, the workflow its
//!   ledger steps, while the database cannot be reached.
//! The test holds the part down itself and starts it again; how long the start takes is this
//! machine's pace, so when the part came back decides which answer is right, not a fixed window.
//! And readiness says so: with the database stopped, `/readyz` answers 503 `unavailable`.
//! A monitor's run whose worker is killed while its tool waits is taken up again by the new
//! worker, judged once, and charged once or not at all.
import type http from 'node:http';
import test from 'ava';
import { balanceOf, callTool, isProblem, newAccount, request } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';
import { findTool } from '../../domain/tools/catalogue.js';
import { stackControl } from './support/stack-control.js';
import { send, startPageServer } from '../fixtures/http-pages.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { createMonitor, monitorUsage, runsOf, settled } from '../monitors/support.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const HASH_TEXT = findTool('hash-text')!;
const BODY = { text: 'outage', algorithm: 'sha256' };
/**
 * How long the API waits for a synchronous call before it gives up (api/tool-calls.ts: the tool's
 * deadline, the ledger's grace and the read margin), counted from before the request was sent.
 */
const GIVES_UP_AFTER_MS = HASH_TEXT.timeoutMs + 30_000;
/** Back this long before the API would give up, the call has time to run: it must answer 200. */
const ROOM_TO_RUN_MS = 10_000;

for (const part of ['workers', 'database'] as const) {
  test.serial(
    `a call whose ${part === 'workers' ? 'pool' : part} is down waits for it and answers 200 once it is back in time, charged once`,
    async (t) => {
      t.timeout(3 * 60_000);
      const control = stackControl(testEnv.stackControlUrl());
      const account = await newAccount(50);
      t.is((await callTool(account.apiKey, 'hash-text', BODY)).status, 200, 'the stack answers before the outage');
      const before = await balanceOf(account);

      await control.run(`stop/${part}`);
      const sent = Date.now();
      let answeredAt = 0;
      const call = callTool(account.apiKey, 'hash-text', BODY).then((res) => ((answeredAt = Date.now()), res));
      // Down past the tool's own deadline: waiting for the part is not the tool running late.
      await sleep(HASH_TEXT.timeoutMs + 2_000);
      const restarting = Date.now();
      await control.run(`start/${part}`);
      const backAfter = Date.now() - sent;
      const res = await call;
      const next = await callTool(account.apiKey, 'hash-text', BODY);
      const cost = before - (await balanceOf(account)) - (next.status === 200 ? HASH_TEXT.cost : 0);
      t.log(
        `hash-text with its ${part} down: ${res.status} ${res.body?.code ?? ''}; ${part} back ${(backAfter / 1000).toFixed(1)} s after the call was sent (the API gives up after ${GIVES_UP_AFTER_MS / 1000} s)`,
      );

      if (backAfter <= GIVES_UP_AFTER_MS - ROOM_TO_RUN_MS) {
        t.is(res.status, 200, JSON.stringify(res.body));
        t.true(answeredAt >= restarting, 'answered only once it was back');
      } else {
        // Back too late for this call on this machine: the API gave up, or the call ran out of time.
        t.true(res.status === 200 || isProblem(res, 504, 'tool_timeout') || isProblem(res, 503, 'unavailable'), JSON.stringify(res.body));
      }
      t.is(cost, res.status === 200 ? HASH_TEXT.cost : 0, 'charged once if it answered 200, else nothing');
      t.is(next.status, 200, 'once it is back, the next call is 200');
    },
  );
}

test.serial('with the database stopped, readiness answers 503 unavailable naming it; once it is started again, 200', async (t) => {
  t.timeout(3 * 60_000);
  const control = stackControl(testEnv.stackControlUrl());
  await control.run('stop/database');
  // Stopped, not merely slow: a probe between the stop and the start cannot find it.
  const down = await request('GET', '/readyz').finally(() => control.run('start/database'));
  t.true(isProblem(down, 503, 'unavailable'), JSON.stringify(down.body));
  t.is(down.body.checks.database, 'unreachable');
  t.true(Number(down.headers.get('retry-after')) >= 1);
  // The API's connection finds the new process on its own; bounded only against a hang.
  let ready = await request('GET', '/readyz');
  for (const until = Date.now() + 90_000; ready.status !== 200 && Date.now() < until; ready = await request('GET', '/readyz'))
    await sleep(500);
  t.is(ready.status, 200, JSON.stringify(ready.body));
});

test.serial("a monitor's run whose worker is killed while its tool waits is judged once and charged once or not at all", async (t) => {
  t.timeout(3 * 60_000);
  const control = stackControl(testEnv.stackControlUrl());
  const held: http.ServerResponse[] = [];
  let hold = true;
  const pages = await startPageServer({
    routes: { '/held': (_req, res) => (hold ? void held.push(res) : send(res, 200, 'text/plain', 'answered')) },
  });
  t.teardown(() => pages.close());
  const account = await newAccount(50);
  const monitor = await createMonitor(account, {
    name: 'Killed mid-run',
    tool: 'http-request',
    input: { url: pages.url('/held') },
    schedule: { every: '1h' },
    assertions: [{ path: '/statusCode', op: 'eq', value: 200 }],
    alert: { notify: [] },
  });
  // Read, not assumed: a plan the operator set (the fuzzing sets some) may have granted more than the 50.
  const before = await balanceOf(account);
  const started = await request('POST', `/api/v1/account/monitors/${monitor.id}/run`, { token: account.ownerToken });
  t.is(started.status, 202);
  await eventually(
    async () => held.length,
    (n) => n >= 1,
    60_000,
    'the run waiting on its target',
  );
  await control.run('kill/workers');
  hold = false;
  for (const res of held.splice(0)) res.destroy();
  const runs = await eventually(
    () => runsOf(account, monitor.id),
    (r) => r.length >= 1,
    120_000,
    'the run judged',
  );
  await settled(account, monitor.id);
  t.is((await runsOf(account, monitor.id)).length, 1, 'judged once');
  const [run] = runs;
  t.is(run.id, started.body.runId);
  const usage = await monitorUsage(account, monitor.id);
  const charged = usage.filter((u) => u.outcome === 'charged');
  t.true(charged.length <= 1, 'charged at most once');
  t.is(run.charged, charged.length * 2);
  t.is(await balanceOf(account), before - run.charged, 'the balance says the same');
  t.log(`run ${run.outcome} after the kill, charged ${run.charged}; requests to its target: ${pages.requests.length}`);
});
