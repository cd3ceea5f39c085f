//! A part of the stack down for a while, a call started meanwhile waits for it and answers 200
//! once it is back, charged once, as long as that is before the call's answer deadline:
//! - the tool's worker pool: the call waits in its pool's queue (the call's whole workflow runs
//!   on the pool); a call taken up later than its deadline ends without reserving
//!   (test/workflows/tool-call-answer-by.test.ts);
//! - the database: the API repeats the key lookup and the call's first writes, the workflow its
//!   ledger steps, while the database cannot be reached.
import test from 'ava';
import { balanceOf, callTool, newAccount } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';
import { findTool } from '../../domain/catalogue.js';
import { OUTAGE_MS } from '../../scripts/stack/test-stack.js';
import { stackControl, type FaultAction } from './support/stack-control.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const HASH_TEXT = findTool('hash-text')!;
/** Time for the kill to land before the call starts; the call still has the rest of the outage. */
const KILL_SETTLE_MS = 2_000;
const BODY = { text: 'outage', algorithm: 'sha256' };

/** A hash-text call sent KILL_SETTLE_MS into `outage`: its status, how long it took, and the credits it cost. */
async function callDuring(outage: FaultAction) {
  const control = stackControl(testEnv.stackControlUrl());
  const account = await newAccount(50);
  const first = await callTool(account.apiKey, 'hash-text', BODY);
  if (first.status !== 200) throw new Error(`the stack answers ${first.status} before the outage`);
  const before = await balanceOf(account);

  const fault = control.run(outage);
  await sleep(KILL_SETTLE_MS);
  const started = performance.now();
  const res = await callTool(account.apiKey, 'hash-text', BODY);
  const seconds = (performance.now() - started) / 1000;
  await fault;
  const next = await callTool(account.apiKey, 'hash-text', BODY);
  // Read once the part is back and the next call charged: the call's own charge, counted apart.
  const cost = before - (await balanceOf(account)) - (next.status === 200 ? HASH_TEXT.cost : 0);
  return { res, seconds, cost, next };
}

for (const [outage, part] of [['outage/workers', 'pool'], ['outage/database', 'database']] as const) {
  test.serial(`a call whose ${part} is down waits for it and answers 200 once it is back, charged once`, async (t) => {
    t.timeout(2 * 60_000);
    t.true(KILL_SETTLE_MS + HASH_TEXT.timeoutMs < OUTAGE_MS, `the ${part} stays down past the tool's own deadline`);
    const { res, seconds, cost, next } = await callDuring(outage);
    t.log(`hash-text with its ${part} down: ${res.status} after ${seconds.toFixed(1)} s (tool deadline ${HASH_TEXT.timeoutMs / 1000} s, outage ${OUTAGE_MS / 1000} s)`);
    t.is(res.status, 200, JSON.stringify(res.body));
    t.true(seconds * 1000 >= OUTAGE_MS - KILL_SETTLE_MS - 1_000, 'answered only once it was back');
    t.is(cost, HASH_TEXT.cost, 'charged once');
    t.is(next.status, 200, 'once it is back, the next call is 200');
  });
}
