//! Workflow tests of `toolCall` on the time-skipping test server, with the real ledger on the
//! real database and tool handlers written for the test (a tool that answers, one that refuses,
//! one that crashes, one that hangs), registered as a pool's worker registers its tools. Every
//! behaviour holds whether the tool runs in the call's one step within its workflow task or
//! queued on the pool; a call started the way calls were before they ran on their pool (workflow
//! on `core`) still completes.
import test from 'ava';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { ServiceError } from '../../contracts/errors.js';
import { MongoClient } from 'mongodb';
import { createServer, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { defaultPayloadConverter } from '@temporalio/common';
import { createCallActivities } from '../../activities/call-activities.js';
import { createCallStep } from '../../activities/call-step.js';
import { createCallKeys } from '../../domain/calls/keys.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import type { Mongo } from '../../lib/mongo.js';
import { startWorkflowTestBed, serviceWorkflowBundle, type WorkflowTestBed } from '../helpers/workflow-test-bed.js';
import { createCoreActivities } from '../../activities/core/index.js';
import { createLedger, type Ledger } from '../../domain/ledger/ledger.js';
import { createAccounts } from '../../domain/accounts/accounts.js';
import { LONG_CALL_QUEUES, TASK_QUEUES, callTaskQueue } from '../../contracts/temporal-names.js';
import type { ToolCallInput, ToolCallResult } from '../../contracts/call.js';
import { DatabaseBlobStore } from '../../lib/blob-store.js';
import { INLINE_OUTPUT_MAX_BYTES, isOutputBlob, storedJson, type OutputBlob } from '../../lib/output-blobs.js';

let env: TestWorkflowEnvironment;
let mongo: Mongo;
let bed: WorkflowTestBed | undefined;
const attempts = new Map<string, number>();

function count(name: string) {
  attempts.set(name, (attempts.get(name) ?? 0) + 1);
  return attempts.get(name)!;
}

/** An output over INLINE_OUTPUT_MAX_BYTES, as a capture's is. */
const BIG_OUTPUT = { fileBase64: 'QUJD'.repeat(50_000), mimeType: 'image/png' };

// Test tools: stand-ins for a real tool's behaviour classes, not for Temporal or the database.
const testTools: Record<string, ToolHandler> = {
  answers: async () => ({ fine: true }),
  refuses: async () => {
    count('refuses');
    throw new ServiceError('target_not_allowed', 'private address', { reason: 'private' });
  },
  crashesTwice: async () => {
    if (count('crashesTwice') < 3) throw new Error('transient');
    return { recovered: true };
  },
  alwaysCrashes: async () => {
    count('alwaysCrashes');
    throw new Error('boom with internal detail at /srv/secret/path');
  },
  answersBig: async () => BIG_OUTPUT,
  // Never answers within the deadline; gives up its thread when its run is aborted.
  hangs: async (_input, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)),
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
    const activities = createCallActivities(mongo.db, { ...testTools, databaseAway });
    return [
      // A pool's workers, as workers/pools.ts makes them, on its queue and its queue of long
      // calls: the call's workflow, its ledger steps and the tools.
      ...(await Promise.all(
        [TASK_QUEUES.cpu, LONG_CALL_QUEUES.cpu].map(async (taskQueue) =>
          Worker.create({
            connection: env.nativeConnection,
            taskQueue,
            workflowBundle: await serviceWorkflowBundle(),
            activities,
            shutdownForceTime: '1s',
          }),
        ),
      )),
      // A pool's worker whose first commit gets through but fails to report, so its step is retried.
      await Worker.create({
        connection: env.nativeConnection,
        taskQueue: FLAKY_COMMIT_QUEUE,
        workflowBundle: await serviceWorkflowBundle(),
        activities: createCallStep({
          handlers: testTools,
          ledger: commitLosesItsAnswer(createLedger(mongo.db)),
          callKeys: createCallKeys(mongo.db),
        }),
      }),
      // What ran calls started before they ran on their pool: the workflow on `core`.
      await Worker.create({
        connection: env.nativeConnection,
        taskQueue: TASK_QUEUES.core,
        workflowBundle: await serviceWorkflowBundle(),
        activities: createCoreActivities(mongo.db),
      }),
    ];
  });
  ({ env, mongo } = bed);
});

test.after.always(() => bed?.close());

const FLAKY_COMMIT_QUEUE = 'cpu-flaky-commit';

/** A ledger whose first commit is applied but throws, as when the database's answer is lost. */
function commitLosesItsAnswer(ledger: Ledger): Ledger {
  let lost = false;
  return {
    ...ledger,
    async commit(call) {
      const result = await ledger.commit(call);
      if (lost) return result;
      lost = true;
      throw new Error('connection reset before the answer');
    },
  };
}

/** The local activities a call's history records, with their results. */
async function steps(workflowId: string): Promise<{ type: string; result: unknown }[]> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') return [];
    const data = defaultPayloadConverter.fromPayload<{ activity_type?: string; activityType?: string }>(
      marker.details!.data!.payloads![0]!,
    );
    const result = marker.details?.result?.payloads?.[0];
    return [
      { type: String(data.activity_type ?? data.activityType), result: result ? defaultPayloadConverter.fromPayload(result) : undefined },
    ];
  });
}

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

async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

type Execution = NonNullable<ToolCallInput['execution']> | 'started on core' | 'local in three steps' | 'queued in three steps';

/** How the API starts a call of each kind; the last three as calls were started before. */
const HOW: Record<Execution, Pick<ToolCallInput, 'execution' | 'oneStep'>> = {
  local: { execution: 'local', oneStep: true },
  queued: { execution: 'queued', oneStep: true },
  'local in three steps': { execution: 'local' },
  'queued in three steps': { execution: 'queued' },
  'started on core': {},
};

/** The queue the API starts a call of each kind on (a legacy call's: where it was started then). */
function queueOf(execution: Execution): string {
  if (execution === 'started on core') return TASK_QUEUES.core;
  return HOW[execution].oneStep ? callTaskQueue({ pool: 'cpu', execution: HOW[execution].execution }) : TASK_QUEUES.cpu;
}

async function run(
  tool: string,
  execution: Execution,
  options: { credits?: number; cost?: number; timeoutMs?: number; taskQueue?: string } = {},
): Promise<{ result: ToolCallResult; accountId: string; workflowId: string }> {
  attempts.clear();
  const accounts = createAccounts(mongo.db);
  const { account } = await accounts.open({ credits: options.credits ?? 10 });
  const base = {
    accountId: account._id,
    tool,
    pool: 'cpu' as const,
    cost: options.cost ?? 3,
    timeoutMs: options.timeoutMs ?? 10_000,
    input: {},
  };
  const input: ToolCallInput = { ...base, ...HOW[execution] };
  const workflowId = `wf-${tool}-${execution.replace(/ /g, '-')}-${Date.now()}`;
  const result = await env.client.workflow.execute('toolCall', {
    taskQueue: options.taskQueue ?? queueOf(execution),
    workflowId,
    args: [input],
  });
  return { result: result as ToolCallResult, accountId: account._id, workflowId };
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

test.serial('a call started on core, as before calls ran on their pool, still runs its tool on the pool and is charged', async (t) => {
  const { result, accountId } = await run('answers', 'started on core');
  t.deepEqual(result, { ok: true, output: { fine: true }, charged: 3, balance: 7 });
  t.is((await createLedger(mongo.db).balanceOf(accountId)).chargedBalance, 7);
});

test.serial(
  'a call of a local tool started before calls were one step still runs reserve, tool and commit as steps of their own, and is charged',
  async (t) => {
    const { result, accountId, workflowId } = await run('answers', 'local in three steps');
    t.deepEqual(result, { ok: true, output: { fine: true }, charged: 3, balance: 7 });
    t.deepEqual(
      (await steps(workflowId)).map((s) => s.type),
      ['reserve', 'answers', 'commit'],
    );
    t.is((await createLedger(mongo.db).balanceOf(accountId)).chargedBalance, 7);
  },
);

for (const execution of ['local', 'queued'] as const) {
  test.serial(`a call is one step, whose recorded result names the outcome and times its parts (${execution})`, async (t) => {
    const charged = await run('answers', execution);
    const history = await env.client.workflow.getHandle(charged.workflowId).fetchHistory();
    t.is(
      history.events?.[0]?.workflowExecutionStartedEventAttributes?.taskQueue?.name,
      execution === 'queued' ? LONG_CALL_QUEUES.cpu : TASK_QUEUES.cpu,
    );
    t.false(history.events?.some((e) => e.activityTaskScheduledEventAttributes) ?? true, 'no activity of its own');
    const [step, ...others] = await steps(charged.workflowId);
    t.deepEqual(others, [], 'one local activity');
    t.is(step?.type, 'callStep');
    t.like(step?.result, { outcome: 'charged', attempts: 1, result: { ok: true, charged: 3, balance: 7 } });
    const { ms } = step!.result as { ms: Record<string, unknown> };
    for (const part of ['reserve', 'tool', 'settle']) t.is(typeof ms[part], 'number', part);

    const refused = await run('refuses', execution);
    t.like((await steps(refused.workflowId))[0]?.result, {
      outcome: 'refunded',
      attempts: 1,
      result: { ok: false, error: { code: 'target_not_allowed' } },
    });
    const poor = await run('answers', execution, { credits: 2, cost: 3 });
    t.like((await steps(poor.workflowId))[0]?.result, {
      outcome: 'insufficient_credits',
      result: { ok: false, error: { code: 'insufficient_credits' } },
    });
  });
}

test.serial(
  "a call of a queued tool started before calls were one step still runs its tool as an activity on the pool's queue, and is charged",
  async (t) => {
    const { result, accountId, workflowId } = await run('answers', 'queued in three steps');
    t.deepEqual(result, { ok: true, output: { fine: true }, charged: 3, balance: 7 });
    t.deepEqual(
      (await steps(workflowId)).map((s) => s.type),
      ['reserve', 'commit'],
    );
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const scheduled = history.events?.find((e) => e.activityTaskScheduledEventAttributes)?.activityTaskScheduledEventAttributes;
    t.is(scheduled?.activityType?.name, 'answers');
    t.is(scheduled?.taskQueue?.name, TASK_QUEUES.cpu);
    t.is((await createLedger(mongo.db).balanceOf(accountId)).chargedBalance, 7);
  },
);

test.serial(
  'a step retried after its commit got through but its answer was lost charges once, answers 200 and leaves no hold',
  async (t) => {
    const { result, accountId, workflowId } = await run('answers', 'local', { taskQueue: FLAKY_COMMIT_QUEUE });
    t.like(result, { ok: true, charged: 3, balance: 7 });
    t.like(await createLedger(mongo.db).balanceOf(accountId), { balance: 7, chargedBalance: 7, holds: {} });
    t.like((await steps(workflowId))[0]?.result, { outcome: 'charged' });
  },
);
