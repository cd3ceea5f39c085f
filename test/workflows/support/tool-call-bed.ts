//! The `toolCall` workflow's test bed (test/workflows/tool-call-*.test.ts): the time-skipping test
//! server, the real ledger on the real database, and tool handlers written for the test (a tool that
//! answers, one that refuses, one that crashes, one that hangs), registered as a pool's worker
//! registers its tools; and a call started as the API starts each kind.
import test from 'ava';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { ServiceError } from '../../../contracts/errors.js';
import { MongoClient } from 'mongodb';
import { createServer, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { defaultPayloadConverter } from '@temporalio/common';
import { createCallActivities } from '../../../activities/call-activities.js';
import { createCallStep } from '../../../activities/call-step.js';
import { createCallKeys } from '../../../domain/calls/keys.js';
import type { ToolHandler } from '../../../domain/tools/index.js';
import type { Mongo } from '../../../lib/mongo.js';
import { startWorkflowTestBed, serviceWorkflowBundle, type WorkflowTestBed } from '../../helpers/workflow-test-bed.js';
import { createCoreActivities } from '../../../activities/core/index.js';
import { createLedger, type Ledger } from '../../../domain/ledger/ledger.js';
import { createAccounts } from '../../../domain/accounts/accounts.js';
import { LONG_CALL_QUEUES, TASK_QUEUES, callTaskQueue } from '../../../contracts/temporal-names.js';
import type { ToolCallInput, ToolCallResult } from '../../../contracts/call.js';

export let env: TestWorkflowEnvironment;
export let mongo: Mongo;
let bed: WorkflowTestBed | undefined;
/** Runs of each test tool in the current call. */
export const attempts = new Map<string, number>();

function count(name: string) {
  attempts.set(name, (attempts.get(name) ?? 0) + 1);
  return attempts.get(name)!;
}

/** An output over INLINE_OUTPUT_MAX_BYTES, as a capture's is. */
export const BIG_OUTPUT = { fileBase64: 'QUJD'.repeat(50_000), mimeType: 'image/png' };

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

/**
 * The file's bed: the time-skipping server with a pool's workers (its queue and its queue of long
 * calls), a pool's worker that loses its first commit's answer, and `core` as it ran calls before
 * they ran on their pool; on `database`, the file's own.
 */
export function useToolCallBed(database: string): void {
  test.before(async () => {
    bed = await startWorkflowTestBed(database, async (env, mongo) => {
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
}

/** A pool's queue whose worker loses its first commit's answer. */
export const FLAKY_COMMIT_QUEUE = 'cpu-flaky-commit';

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
export async function steps(workflowId: string): Promise<{ type: string; result: unknown }[]> {
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

async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export type Execution = NonNullable<ToolCallInput['execution']> | 'started on core' | 'local in three steps' | 'queued in three steps';

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

export async function run(
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
