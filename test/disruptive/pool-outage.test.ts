//! A tool's worker pool down for a while: a call started meanwhile waits in its pool's queue (the
//! call's whole workflow runs on the pool) and answers 200 once the pool is back, charged once,
//! as long as that is before the call's answer deadline; a call taken up later than that ends
//! without reserving (test/workflows/tool-call-answer-by.test.ts).
import test from 'ava';
import { balanceOf, callTool, newAccount } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';
import { findTool } from '../../domain/catalogue.js';
import { OUTAGE_MS } from '../../scripts/stack/test-stack.js';
import { stackControl } from './support/stack-control.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const HASH_TEXT = findTool('hash-text')!;
/** Time for the kill to land before the call starts; the call still has the rest of the outage. */
const KILL_SETTLE_MS = 2_000;

test('a call whose pool is down waits for it and answers 200 once it is back, charged once', async (t) => {
  t.timeout(2 * 60_000);
  t.true(KILL_SETTLE_MS + HASH_TEXT.timeoutMs < OUTAGE_MS, 'the pool stays down past the tool\'s own deadline');
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
  t.log(`hash-text with its pool down: ${res.status} after ${seconds.toFixed(1)} s (tool deadline ${HASH_TEXT.timeoutMs / 1000} s, outage ${OUTAGE_MS / 1000} s)`);
  t.is(res.status, 200, JSON.stringify(res.body));
  t.true(seconds * 1000 >= OUTAGE_MS - KILL_SETTLE_MS - 1_000, 'answered only once the pool was back');
  await outage;
  t.is(await balanceOf(account), before - HASH_TEXT.cost, 'charged once');
  t.is((await callTool(account.apiKey, 'hash-text', body)).status, 200, 'the pool back, the next call is 200');
});
