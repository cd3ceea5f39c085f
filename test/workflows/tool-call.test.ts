//! Workflow tests of `toolCall` on the time-skipping test server, with the real ledger on the
//! real database and tool activities written for the test (a tool that answers, one that
//! refuses, one that crashes, one that hangs).
import test from 'ava';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { Mongo } from '../../lib/mongo.js';
import { startWorkflowTestBed, WORKFLOWS_PATH, type WorkflowTestBed } from '../helpers/workflow-test-bed.js';
import { createCoreActivities } from '../../activities/core/index.js';
import { createLedger } from '../../domain/ledger.js';
import { createAccounts } from '../../domain/accounts.js';
import { TASK_QUEUES, type ToolCallInput, type ToolCallResult } from '../../lib/temporal-shared.js';

let env: TestWorkflowEnvironment;
let mongo: Mongo;
let bed: WorkflowTestBed | undefined;
const attempts = new Map<string, number>();

function count(name: string) {
  attempts.set(name, (attempts.get(name) ?? 0) + 1);
  return attempts.get(name)!;
}

// Test tools: stand-ins for a real tool's behaviour classes, not for Temporal or the database.
const testTools = {
  answers: async () => ({ fine: true }),
  refuses: async () => {
    count('refuses');
    throw ApplicationFailure.create({ type: 'target_not_allowed', message: 'private address', nonRetryable: true, details: [{ reason: 'private' }] });
  },
  crashesTwice: async () => {
    if (count('crashesTwice') < 3) throw new Error('transient');
    return { recovered: true };
  },
  alwaysCrashes: async () => {
    count('alwaysCrashes');
    throw new Error('boom with internal detail at /srv/secret/path');
  },
  // Never answers within the deadline; gives up its thread when the worker shuts down.
  hangs: async () => new Promise((resolve) => Context.current().cancellationSignal.addEventListener('abort', resolve)),
};

test.before(async () => {
  bed = await startWorkflowTestBed('workflow_tests', async (env, mongo) => [
    await Worker.create({ connection: env.nativeConnection, taskQueue: TASK_QUEUES.core, workflowsPath: WORKFLOWS_PATH, activities: createCoreActivities(mongo.db) }),
    await Worker.create({ connection: env.nativeConnection, taskQueue: TASK_QUEUES.cpu, activities: testTools, shutdownForceTime: '1s' }),
  ]);
  ({ env, mongo } = bed);
});

test.after.always(() => bed?.close());

async function run(tool: keyof typeof testTools, credits = 10, cost = 3): Promise<{ result: ToolCallResult; accountId: string }> {
  const accounts = createAccounts(mongo.db);
  const { account } = await accounts.open({ credits });
  const input: ToolCallInput = { accountId: account._id, tool, pool: 'cpu', cost, timeoutMs: 10_000, input: {} };
  const result = await env.client.workflow.execute('toolCall', { taskQueue: TASK_QUEUES.core, workflowId: `wf-${tool}-${Date.now()}`, args: [input] });
  return { result: result as ToolCallResult, accountId: account._id };
}

test.serial('a tool that answers is charged once', async (t) => {
  const { result, accountId } = await run('answers');
  t.deepEqual(result, { ok: true, output: { fine: true }, charged: 3, balance: 7 });
  t.is((await createLedger(mongo.db).balanceOf(accountId)).chargedBalance, 7);
});

test.serial('a final error is not retried and the call is refunded', async (t) => {
  const { result, accountId } = await run('refuses');
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

test.serial('a transient crash is retried and then charged', async (t) => {
  const { result } = await run('crashesTwice');
  t.true(result.ok);
  t.is(attempts.get('crashesTwice'), 3);
});

test.serial('a tool that keeps crashing ends as an internal error, refunded, without internals', async (t) => {
  const { result, accountId } = await run('alwaysCrashes');
  t.false(result.ok);
  if (!result.ok) {
    t.is(result.error.code, 'internal_error');
    t.false(JSON.stringify(result.error).includes('/srv/secret'));
  }
  t.is(attempts.get('alwaysCrashes'), 3);
  t.is((await createLedger(mongo.db).balanceOf(accountId)).balance, 10);
});

test.serial('a tool past its deadline answers tool_timeout and is refunded', async (t) => {
  const { result, accountId } = await run('hangs');
  t.false(result.ok);
  if (!result.ok) t.is(result.error.code, 'tool_timeout');
  t.is((await createLedger(mongo.db).balanceOf(accountId)).balance, 10);
});

test.serial('an account that cannot afford the call gets insufficient_credits and no hold', async (t) => {
  const { result, accountId } = await run('answers', 2, 3);
  t.deepEqual(result, {
    ok: false,
    error: { code: 'insufficient_credits', message: 'This call costs 3 credits; the balance is 2.', extras: { balance: 2, cost: 3 } },
  });
  const account = await createLedger(mongo.db).balanceOf(accountId);
  t.is(account.balance, 2);
  t.deepEqual(account.holds, {});
});
