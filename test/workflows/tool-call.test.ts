//! Workflow tests of `toolCall` on the time-skipping test server, with the real ledger on the
//! real database and tool activities written for the test (a tool that answers, one that
//! refuses, one that crashes, one that hangs). Every behaviour holds whether the tool runs as a
//! local activity of the call's workflow task or queued on the pool; a call started the way
//! calls were before they ran on their pool (workflow on `core`) still completes.
import test from 'ava';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { MongoClient } from 'mongodb';
import { createServer, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { toolActivities } from '../../activities/tool-activities.js';
import { createCallKeys } from '../../domain/call-keys.js';
import type { ToolHandler } from '../../lib/tool-handler.js';
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

/** A tool whose database cannot be reached (as in an outage), run through the real activity wrapper. */
const databaseAway: ToolHandler = async () => {
  count('databaseAway');
  // A client of a port nothing listens on: it fails as a connected one does in an outage.
  const client = new MongoClient(`mongodb://127.0.0.1:${await closedPort()}/`, { serverSelectionTimeoutMS: 100 });
  try {
    return await client.db().collection('quotes').findOne({});
  } finally {
    await client.close();
  }
};

test.before(async () => {
  bed = await startWorkflowTestBed('workflow_tests', async (env, mongo) => {
    const { reserve, commit, refund, destroyCallKey } = createCoreActivities(mongo.db);
    return [
      // A pool's worker, as workers/pools.ts makes it: the call's workflow, its ledger steps and the tools.
      await Worker.create({
        connection: env.nativeConnection,
        taskQueue: TASK_QUEUES.cpu,
        workflowsPath: WORKFLOWS_PATH,
        activities: { reserve, commit, refund, destroyCallKey, ...testTools, ...toolActivities({ databaseAway }, { callKeys: createCallKeys(mongo.db) }) },
        shutdownForceTime: '1s',
      }),
      // What ran calls started before they ran on their pool: the workflow on `core`.
      await Worker.create({ connection: env.nativeConnection, taskQueue: TASK_QUEUES.core, workflowsPath: WORKFLOWS_PATH, activities: createCoreActivities(mongo.db) }),
    ];
  });
  ({ env, mongo } = bed);
});

test.after.always(() => bed?.close());

async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

type Execution = NonNullable<ToolCallInput['execution']> | 'started on core';

async function run(
  tool: string,
  execution: Execution,
  options: { credits?: number; cost?: number; timeoutMs?: number } = {},
): Promise<{ result: ToolCallResult; accountId: string }> {
  attempts.clear();
  const accounts = createAccounts(mongo.db);
  const { account } = await accounts.open({ credits: options.credits ?? 10 });
  const base = { accountId: account._id, tool, pool: 'cpu' as const, cost: options.cost ?? 3, timeoutMs: options.timeoutMs ?? 10_000, input: {} };
  const legacy = execution === 'started on core';
  const input: ToolCallInput = legacy ? base : { ...base, execution };
  const result = await env.client.workflow.execute('toolCall', {
    taskQueue: legacy ? TASK_QUEUES.core : TASK_QUEUES.cpu,
    workflowId: `wf-${tool}-${execution.replace(/ /g, '-')}-${Date.now()}`,
    args: [input],
  });
  return { result: result as ToolCallResult, accountId: account._id };
}

const EXECUTIONS: Execution[] = ['local', 'queued'];

for (const execution of EXECUTIONS) {
  test.serial(`a tool that answers is charged once (${execution})`, async (t) => {
    const { result, accountId } = await run('answers', execution);
    t.deepEqual(result, { ok: true, output: { fine: true }, charged: 3, balance: 7 });
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

  test.serial(`a database out of the tool's reach is tried again, then 503 unavailable, refunded, never internal_error (${execution})`, async (t) => {
    const { result, accountId } = await run('databaseAway', execution);
    t.like(result, { ok: false, error: { code: 'unavailable' } });
    t.is(attempts.get('databaseAway'), 3, 'retried like a crash, not final like a refusal');
    t.is((await createLedger(mongo.db).balanceOf(accountId)).balance, 10);
  });

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

test.serial('a call started on core, as before calls ran on their pool, still runs its tool on the pool and is charged', async (t) => {
  const { result, accountId } = await run('answers', 'started on core');
  t.deepEqual(result, { ok: true, output: { fine: true }, charged: 3, balance: 7 });
  t.is((await createLedger(mongo.db).balanceOf(accountId)).chargedBalance, 7);
});
