//! The `toolCall` workflow's outcomes on the time-skipping test server, with the real ledger on the
//! real database and tool handlers written for the test: a tool that answers is charged once, a big
//! output is stored by reference, a refusal is final and refunded, a crash is retried, a tool that
//! keeps crashing, loses its database or hangs is refunded, an account that cannot pay holds
//! nothing. Every behaviour holds whether the tool runs in the call's one step within its workflow
//! task or queued on the pool.
import test from 'ava';
import { createLedger } from '../../domain/ledger/ledger.js';
import { DatabaseBlobStore } from '../../lib/blob-store.js';
import { INLINE_OUTPUT_MAX_BYTES, isOutputBlob, storedJson, type OutputBlob } from '../../lib/output-blobs.js';
import { attempts, BIG_OUTPUT, env, type Execution, mongo, run, useToolCallBed } from './support/tool-call-bed.js';

useToolCallBed('workflow_tests');

/** The size of every payload anywhere in a history. */
function payloadSizes(history: unknown): number[] {
  const sizes: number[] = [];
  const visit = (node: unknown) => {
    if (node instanceof Uint8Array) return;
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    const { data, metadata } = node as { data?: unknown; metadata?: unknown };
    if (data instanceof Uint8Array && metadata) sizes.push(data.length);
    Object.values(node).forEach(visit);
  };
  visit(history);
  return sizes;
}

const EXECUTIONS: Execution[] = ['local', 'queued', 'queued in three steps'];

for (const execution of EXECUTIONS) {
  test.serial(`a tool that answers is charged once (${execution})`, async (t) => {
    const { result, accountId } = await run('answers', execution);
    t.deepEqual(result, { ok: true, output: { fine: true }, charged: 3, balance: 7 });
    t.is((await createLedger(mongo.db).balanceOf(accountId)).chargedBalance, 7);
  });

  test.serial(`a big output is stored once and the call carries only its reference, charged once (${execution})`, async (t) => {
    const { result, accountId, workflowId } = await run('answersBig', execution);
    t.like(result, { ok: true, charged: 3, balance: 7 });
    if (!result.ok) return;
    t.true(isOutputBlob(result.output), JSON.stringify(result.output).slice(0, 200));
    const json = await storedJson(new DatabaseBlobStore(mongo.db), result.output as OutputBlob);
    t.deepEqual(JSON.parse(json.toString('utf8')), BIG_OUTPUT);
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const largest = Math.max(...payloadSizes(history));
    t.true(largest < INLINE_OUTPUT_MAX_BYTES, `the largest payload in the history is ${largest} bytes`);
    t.is((await createLedger(mongo.db).balanceOf(accountId)).chargedBalance, 7);
  });

  test.serial(`a final error is not retried and the call is refunded (${execution})`, async (t) => {
    const { result, accountId } = await run('refuses', execution);
    t.false(result.ok);
    if (!result.ok) {
      t.is(result.error.code, 'target_not_allowed');
      t.deepEqual(result.error.extras, { reason: 'private' });
    }
    t.is(attempts.get('refuses'), 1);
    const account = await createLedger(mongo.db).balanceOf(accountId);
    t.is(account.balance, 10);
    t.deepEqual(account.holds, {});
  });

  test.serial(`a transient crash is retried and then charged (${execution})`, async (t) => {
    const { result } = await run('crashesTwice', execution);
    t.true(result.ok);
    t.is(attempts.get('crashesTwice'), 3);
  });

  test.serial(`a tool that keeps crashing ends as an internal error, refunded, without internals (${execution})`, async (t) => {
    const { result, accountId } = await run('alwaysCrashes', execution);
    t.false(result.ok);
    if (!result.ok) {
      t.is(result.error.code, 'internal_error');
      t.false(JSON.stringify(result.error).includes('/srv/secret'));
    }
    t.is(attempts.get('alwaysCrashes'), 3);
    t.is((await createLedger(mongo.db).balanceOf(accountId)).balance, 10);
  });

  test.serial(
    `a database out of the tool's reach is tried again, then 503 unavailable, refunded, never internal_error (${execution})`,
    async (t) => {
      const { result, accountId } = await run('databaseAway', execution);
      t.like(result, { ok: false, error: { code: 'unavailable' } });
      t.is(attempts.get('databaseAway'), 3, 'retried like a crash, not final like a refusal');
      t.is((await createLedger(mongo.db).balanceOf(accountId)).balance, 10);
    },
  );

  test.serial(`a tool past its deadline answers tool_timeout and is refunded (${execution})`, async (t) => {
    const { result, accountId } = await run('hangs', execution, { timeoutMs: 3_000 });
    t.false(result.ok);
    if (!result.ok) t.is(result.error.code, 'tool_timeout');
    t.is((await createLedger(mongo.db).balanceOf(accountId)).balance, 10);
  });

  test.serial(`an account that cannot afford the call gets insufficient_credits and no hold (${execution})`, async (t) => {
    const { result, accountId } = await run('answers', execution, { credits: 2, cost: 3 });
    t.deepEqual(result, {
      ok: false,
      error: { code: 'insufficient_credits', message: 'This call costs 3 credits; the balance is 2.', extras: { balance: 2, cost: 3 } },
    });
    const account = await createLedger(mongo.db).balanceOf(accountId);
    t.is(account.balance, 2);
    t.deepEqual(account.holds, {});
  });
}
