//! The batch runner's test bed (test/workflows/batch-runner-*.test.ts): a database of the file's own
//! and, when asked, a Temporal namespace of its own on the stack's server whose workers alone serve
//! its queues, with the real batch activities and ledger and a hash-text handler written for the
//! test that counts its runs; and batches made as the API makes them.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { Client, type Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import protos from '@temporalio/proto';
import { setTimeout as sleep } from 'node:timers/promises';
import { msToTs } from '@temporalio/common/lib/time.js';
import { installQuietRuntime, serviceWorkflowBundle } from '../../helpers/workflow-test-bed.js';
import { testEnv } from '../../helpers/env.js';
import { createCallActivities } from '../../../activities/call-activities.js';
import { createSingleCalls } from '../../../activities/single-calls.js';
import { createCoreActivities } from '../../../activities/core/index.js';
import { createAccounts } from '../../../domain/accounts/accounts.js';
import { createBatches } from '../../../domain/batches/batches.js';
import { findTool } from '../../../domain/tools/catalogue.js';
import { connectMongo, type Mongo } from '../../../lib/mongo.js';
import type { BatchDoc } from '../../../domain/calls/documents.js';
import { newId } from '../../../lib/ids.js';
import type { ToolHandler } from '../../../domain/tools/index.js';
import { BATCH_RUNNER_WAKE, batchRunnerId, type BatchRunnerInput } from '../../../contracts/batch.js';
import { SEARCH_ATTRIBUTES, TASK_QUEUES, WORKFLOW_TYPES, callTaskQueue } from '../../../contracts/temporal-names.js';
import { connectTemporal, connectTemporalWorker } from '../../helpers/temporal.js';

const { temporal } = protos;
export const HASH_TEXT = findTool('hash-text')!;
export const CONCURRENCY = 4;
/** The `wait` limit of the bed's workers: far below the 7 days a real batch waits. */
export const CREDIT_WAIT_MS = 2_000;
/** BATCH_YIELD_MS of the bed's items' worker. */
export const YIELD_MS = 700;
/** The count of single calls on the bed's items' worker. */
export const singleCalls = createSingleCalls();

export let client: Client;
export let mongo: Mongo;
/** The workers' SECRET_KEY: the runner's fills and the items handing their slots on both open items with it. */
const SECRET_KEY = randomBytes(32);
/** Runs of the test tool by its input text: each item's call must run its tool once. */
export const runs = new Map<string, number>();

/** A single call of this text runs until `release()`. */
export const HOLD = 'hold';
let releaseHeld = () => {};
export const release = () => releaseHeld();

const hashText: ToolHandler = async (input) => {
  const text = String((input as { text: string }).text);
  runs.set(text, (runs.get(text) ?? 0) + 1);
  if (text === HOLD) await new Promise<void>((resolve) => (releaseHeld = resolve));
  return { algorithm: 'sha256', encoding: 'hex', hash: `hash-of-${text}` };
};

/** gRPC's status code. */
const ALREADY_EXISTS = 6;
let workers: Worker[] = [];
let running: Promise<unknown> | undefined;
let connections: { close(): Promise<void> }[] = [];

/** Registers `namespace` with the search attributes calls carry; waits (bounded) until the server knows both. */
async function namespaceReady(connection: Connection, namespace: string): Promise<void> {
  await connection.workflowService
    .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') })
    .catch((err: { code?: number }) => {
      if (err.code !== ALREADY_EXISTS) throw err; // an earlier run of this file on the same server
    });
  const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  const searchAttributes = Object.fromEntries(Object.values(SEARCH_ATTRIBUTES).map((key) => [key.name, keyword]));
  const giveUpAt = Date.now() + 60_000;
  for (;;) {
    try {
      await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
      await connection.workflowService.describeNamespace({ namespace });
      return;
    } catch (err) {
      if (Date.now() > giveUpAt) throw err;
      await sleep(500);
    }
  }
}

/**
 * The bed for one test file, `name` its own (files run side by side, and a worker on another file's
 * queues would run that file's items with its own counts): the database `workflow_<name>` and, with
 * `workers`, the namespace `<name>` with the runner's worker on `core` and the items' on hash-text's
 * queue, as their pools run them.
 */
export function useBatchRunnerBed(name: string, options: { workers: boolean }): void {
  test.before(async () => {
    mongo = await connectMongo(testEnv.mongodbUrl().replace(/\/[^/]*$/, `/workflow_${name.replaceAll('-', '_')}`));
    connections = [mongo];
    if (!options.workers) return;
    installQuietRuntime();
    const connection = await connectTemporal();
    const native = await connectTemporalWorker();
    connections.push(connection, native);
    await namespaceReady(connection, name);
    client = new Client({ connection, namespace: name });
    const common = { connection: native, namespace: name, workflowBundle: await serviceWorkflowBundle() };
    workers = [
      await Worker.create({
        ...common,
        taskQueue: TASK_QUEUES.core,
        activities: createCoreActivities(mongo.db, {
          batches: { client, secretKey: SECRET_KEY, concurrency: CONCURRENCY, creditWaitMs: CREDIT_WAIT_MS },
        }),
      }),
      await Worker.create({
        ...common,
        taskQueue: callTaskQueue(HASH_TEXT),
        activities: createCallActivities(
          mongo.db,
          { 'hash-text': hashText },
          { batchItems: { client, secretKey: SECRET_KEY, yieldMs: YIELD_MS }, singleCalls },
        ),
      }),
    ];
    running = Promise.all(workers.map((w) => w.run()));
  });

  test.after.always(async () => {
    for (const w of workers) w.shutdown();
    await running?.catch(() => {});
    for (const c of connections) await c.close();
  });
}

/** An account with `credits`, and a batch of `size` hash-text items made as the API makes one. */
export async function batchOf(credits: number, size: number, onInsufficientCredits: BatchDoc['onInsufficientCredits']) {
  const { account } = await createAccounts(mongo.db).open({ credits });
  const id = newId('bat');
  const items = Array.from({ length: size }, (_, i) => ({ input: { text: `${id}-${i}`, algorithm: 'sha256' } }));
  await createBatches(mongo.db).create({
    id,
    accountId: account._id,
    tool: HASH_TEXT.name,
    cost: HASH_TEXT.cost,
    onInsufficientCredits,
    items,
    now: new Date(),
  });
  return { accountId: account._id, batchId: id, texts: items.map((i) => i.input.text) };
}

/** Starts the account's runner as the API's wake does, with `input`; answers its first run's handle. */
export function startRunner(input: BatchRunnerInput) {
  return client.workflow.signalWithStart(WORKFLOW_TYPES.batchRunner, {
    workflowId: batchRunnerId(input.accountId),
    taskQueue: TASK_QUEUES.core,
    args: [input],
    signal: BATCH_RUNNER_WAKE,
    signalArgs: [],
  });
}

/** Waits (bounded only against a hang) for the runner's latest run to end. */
export async function runnerEnded(workflowId: string): Promise<void> {
  const giveUpAt = Date.now() + 120_000;
  while ((await client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING') {
    if (Date.now() > giveUpAt) throw new Error(`the runner ${workflowId} did not end`);
    await sleep(200);
  }
}
