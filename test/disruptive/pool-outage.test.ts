//! A tool's worker pool down for longer than the tool's deadline: the call started meanwhile
//! answers 504 tool_timeout and is refunded (the workflow, on the API's own core worker, gives
//! the activity up at the deadline), and once the pool is back the next call answers 200.
import test from 'ava';
import { balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';
import { findTool } from '../../domain/catalogue.js';
import { OUTAGE_MS } from '../../scripts/stack/test-stack.js';
import { stackControl } from './support/stack-control.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const HASH_TEXT = findTool('hash-text')!;
/** Time for the kill to land before the call starts; the call still has the rest of the outage. */
const KILL_SETTLE_MS = 2_000;

test('a call whose pool is down past the deadline is 504 tool_timeout, refunded; the pool back, the next call is 200', async (t) => {
  t.timeout(2 * 60_000);
  t.true(KILL_SETTLE_MS + HASH_TEXT.timeoutMs < OUTAGE_MS, 'the deadline passes while the pool is still down');
  const control = stackControl(testEnv.stackControlUrl());
  const account = await newAccount(50);
  const body = { text: 'pool outage', algorithm: 'sha256' };
  t.is((await callTool(account.apiKey, 'hash-text', body)).status, 200, 'the pool answers before the outage');
  const before = await balanceOf(account);

  const outage = control.run('outage/workers');
  await sleep(KILL_SETTLE_MS);
  const started = performance.now();
  const res = await callTool(account.apiKey, 'hash-text', body);
  const seconds = (performance.now() - started) / 1000;
  t.true(isProblem(res, 504, 'tool_timeout'), `${res.status} ${JSON.stringify(res.body)}`);
  t.log(`hash-text with its pool down: ${res.status} after ${seconds.toFixed(1)} s (deadline ${HASH_TEXT.timeoutMs / 1000} s)`);
  t.is(await balanceOf(account), before, 'refunded');

  await outage;
  // The workers are restarted, not yet polling: a call waits in the queue until they are, and on
  // a slow machine their start may outlast one more deadline (answered 504, refunded).
  let after = await callTool(account.apiKey, 'hash-text', body);
  for (let retries = 0; retries < 3 && isProblem(after, 504, 'tool_timeout'); retries++) after = await callTool(account.apiKey, 'hash-text', body);
  t.is(after.status, 200, JSON.stringify(after.body));
  t.is(await balanceOf(account), before - HASH_TEXT.cost, 'charged once, for the call that answered 200');
});
