//! The batch runner (workflows/batch-runner.ts) on the stack's Temporal (a namespace of this file's
//! own, so its workers alone serve the queues), with the real
//! batch activities, ledger and database, and a hash-text handler written for the test that counts
//! its runs: the runner continues as new past its history threshold (lowered here through its
//! input) without losing, repeating or charging twice any item; and a `wait` batch that no grant
//! rescues gives up once its wait for credits (shortened here through the activities' setting)
//! has passed, as `stop` would: the rest skipped with `insufficient_credits`, exact counts and charges;
//! while a single call runs on the items' worker, each item starts the next one BATCH_YIELD_MS later.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { Client, type Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import protos from '@temporalio/proto';
import { setTimeout as sleep } from 'node:timers/promises';
import { msToTs } from '@temporalio/common/lib/time.js';
import { installQuietRuntime, serviceWorkflowBundle } from '../helpers/workflow-test-bed.js';
import { testEnv } from '../helpers/env.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { createCallActivities } from '../../activities/call-activities.js';
import { createSingleCalls } from '../../activities/single-calls.js';
import { createCoreActivities } from '../../activities/core/index.js';
import { createAccounts } from '../../domain/accounts/accounts.js';
import { createBatches } from '../../domain/batches/batches.js';
import { createBatchProgress } from '../../domain/batches/progress.js';
import { createLedger } from '../../domain/ledger/ledger.js';
import { findTool } from '../../domain/tools/catalogue.js';
import { collections, connectMongo, type Mongo } from '../../lib/mongo.js';
import type { BatchDoc } from '../../domain/calls/documents.js';
import { newId } from '../../lib/ids.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { BATCH_RUNNER_WAKE, batchItemRequestId, batchRunnerId, type BatchRunnerInput } from '../../contracts/batch.js';
import { SEARCH_ATTRIBUTES, TASK_QUEUES, WORKFLOW_TYPES, callTaskQueue } from '../../contracts/temporal-names.js';
import { connectTemporal, connectTemporalWorker } from '../helpers/temporal.js';

const { temporal } = protos;
const HASH_TEXT = findTool('hash-text')!;
const CONCURRENCY = 4;
/** The `wait` limit of this file's workers: far below the 7 days a real batch waits. */
const CREDIT_WAIT_MS = 2_000;
/** BATCH_YIELD_MS of this file's items' worker. */
const YIELD_MS = 700;
/** The count of single calls on this file's items' worker. */
const singleCalls = createSingleCalls();

let client: Client;
let mongo: Mongo;
/** The workers' SECRET_KEY: the runner's fills and the items handing their slots on both open items with it. */
const SECRET_KEY = randomBytes(32);
/** Runs of the test tool by its input text: each item's call must run its tool once. */
const runs = new Map<string, number>();

/** A single call of this text runs until `release()`. */
const HOLD = 'hold';
let release = () => {};

const hashText: ToolHandler = async (input) => {
  const text = String((input as { text: string }).text);
  runs.set(text, (runs.get(text) ?? 0) + 1);
  if (text === HOLD) await new Promise<void>((resolve) => (release = resolve));
  return { algorithm: 'sha256', encoding: 'hex', hash: `hash-of-${text}` };
};

/** A namespace of this file's own on the stack's Temporal: its workers are the only ones on its queues. */
const NAMESPACE = 'batch-runner-tests';
/** gRPC's status code. */
const ALREADY_EXISTS = 6;
let workers: Worker[] = [];
let running: Promise<unknown> | undefined;
let connections: { close(): Promise<void> }[] = [];

/** Registers NAMESPACE with the search attributes calls carry; waits (bounded) until the server knows both. */
async function namespaceReady(connection: Connection): Promise<void> {
  await connection.workflowService
    .registerNamespace({ namespace: NAMESPACE, workflowExecutionRetentionPeriod: msToTs('1 day') })
    .catch((err: { code?: number }) => {
      if (err.code !== ALREADY_EXISTS) throw err; // an earlier run of this file on the same server
    });
  const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  const searchAttributes = Object.fromEntries(Object.values(SEARCH_ATTRIBUTES).map((key) => [key.name, keyword]));
  const giveUpAt = Date.now() + 60_000;
  for (;;) {
    try {
      await connection.operatorService.addSearchAttributes({ namespace: NAMESPACE, searchAttributes });
      await connection.workflowService.describeNamespace({ namespace: NAMESPACE });
      return;
    } catch (err) {
      if (Date.now() > giveUpAt) throw err;
      await sleep(500);
    }
  }
}

test.before(async () => {
  installQuietRuntime();
  const connection = await connectTemporal();
  const native = await connectTemporalWorker();
  mongo = await connectMongo(testEnv.mongodbUrl().replace(/\/[^/]*$/, '/workflow_batch_runner_tests'));
  connections = [connection, native, mongo];
  await namespaceReady(connection);
  client = new Client({ connection, namespace: NAMESPACE });
  const common = { connection: native, namespace: NAMESPACE, workflowBundle: await serviceWorkflowBundle() };
  workers = [
    // The runner and its fills, on `core` as the core pool runs them.
    await Worker.create({
      ...common,
      taskQueue: TASK_QUEUES.core,
      activities: createCoreActivities(mongo.db, {
        batches: { client, secretKey: SECRET_KEY, concurrency: CONCURRENCY, creditWaitMs: CREDIT_WAIT_MS },
      }),
    }),
    // The items' calls, on hash-text's queue as its pool runs them.
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

/** An account with `credits`, and a batch of `size` hash-text items made as the API makes one. */
async function batchOf(credits: number, size: number, onInsufficientCredits: BatchDoc['onInsufficientCredits']) {
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
function startRunner(input: BatchRunnerInput) {
  return client.workflow.signalWithStart(WORKFLOW_TYPES.batchRunner, {
    workflowId: batchRunnerId(input.accountId),
    taskQueue: TASK_QUEUES.core,
    args: [input],
    signal: BATCH_RUNNER_WAKE,
    signalArgs: [],
  });
}

/** Waits (bounded only against a hang) for the runner's latest run to end. */
async function runnerEnded(workflowId: string): Promise<void> {
  const giveUpAt = Date.now() + 120_000;
  while ((await client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING') {
    if (Date.now() > giveUpAt) throw new Error(`the runner ${workflowId} did not end`);
    await sleep(200);
  }
}

/** The runs of a workflow, first to last, following each continue-as-new. */
async function runsOf(workflowId: string, firstRunId: string): Promise<string[]> {
  const ids = [firstRunId];
  for (;;) {
    const history = await client.workflow.getHandle(workflowId, ids.at(-1)).fetchHistory();
    const next = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    if (!next) return ids;
    ids.push(next);
  }
}

/** How much later than it was started each item's call began, by index (Temporal's start delay). */
async function startDelays(batchId: string, size: number, accountId: string): Promise<number[]> {
  return Promise.all(
    Array.from({ length: size }, async (_, i) => {
      const { startTime, executionTime } = await client.workflow.getHandle(batchItemRequestId(accountId, batchId, i, 0)).describe();
      return executionTime!.getTime() - startTime.getTime();
    }),
  );
}

test.serial(
  "while a single call runs on the items' worker, each item starts the next one BATCH_YIELD_MS later; with none, at once",
  async (t) => {
    const size = 10;
    const accountId = (await createAccounts(mongo.db).open({ credits: 10 })).account._id;
    const single = await client.workflow.start(WORKFLOW_TYPES.toolCall, {
      workflowId: newId('req'),
      taskQueue: callTaskQueue(HASH_TEXT),
      args: [
        {
          accountId,
          tool: HASH_TEXT.name,
          pool: HASH_TEXT.pool,
          cost: HASH_TEXT.cost,
          timeoutMs: 60_000,
          execution: 'local',
          oneStep: true,
          input: { text: HOLD, algorithm: 'sha256' },
        },
      ],
    });
    await eventually(async () => singleCalls.busy(), Boolean, 60_000, 'the single call running');
    const busy = await batchOf(100, size, 'stop');
    await runnerEnded((await startRunner({ accountId: busy.accountId })).workflowId);
    release();
    t.like(await single.result(), { ok: true });

    const delays = await startDelays(busy.batchId, size, busy.accountId);
    // The runner's fill starts the first CONCURRENCY items; each later one is handed on by an item that
    // ended. The last one may instead be started by a fill (not yielding), when an item that found
    // nothing left to hand on woke the runner between that last claim and its mark as running.
    t.deepEqual(delays.slice(0, size - 1), [...Array(CONCURRENCY).fill(0), ...Array(size - 1 - CONCURRENCY).fill(YIELD_MS)]);
    t.true([0, YIELD_MS].includes(delays.at(-1)!), `the last item: ${delays.at(-1)} ms`);

    // Once the worker has had no single call for a moment, a batch runs without yielding: its items' own steps do not count.
    await eventually(
      async () => singleCalls.busy(),
      (busy) => !busy,
      60_000,
      'the worker quiet',
    );
    const alone = await batchOf(100, size, 'stop');
    await runnerEnded((await startRunner({ accountId: alone.accountId })).workflowId);
    t.deepEqual(await startDelays(alone.batchId, size, alone.accountId), Array(size).fill(0));
    t.false(singleCalls.busy());
    const { batches } = collections(mongo.db);
    for (const { batchId } of [busy, alone])
      t.like(await batches.findOne({ _id: batchId }), { status: 'completed', counts: { succeeded: size } });
  },
);

test.serial('the runner continues as new past its history threshold, and every item runs once and is charged once', async (t) => {
  const size = 40;
  const { accountId, batchId, texts } = await batchOf(100, size, 'stop');
  // Past a single event: the runner continues as new after every fill (items hand their slots on
  // without it, so it fills only at the start, when its items stop handing on, and on its recheck).
  const handle = await startRunner({ accountId, maxHistoryEvents: 1 });
  // The runner ends once nothing is left to run.
  await runnerEnded(handle.workflowId);

  const chain = await runsOf(handle.workflowId, handle.signaledRunId);
  t.true(chain.length >= 2, `continued as new (runs: ${chain.length})`);
  const { batches, batchItems } = collections(mongo.db);
  const batch = await batches.findOne({ _id: batchId });
  t.like(batch, {
    status: 'completed',
    charged: size * HASH_TEXT.cost,
    counts: { pending: 0, running: 0, succeeded: size, failed: 0, skipped: 0 },
  });
  t.deepEqual(
    texts.map((text) => runs.get(text)),
    texts.map(() => 1),
    "each item's tool ran once",
  );
  const items = await batchItems.find({ batchId }).sort({ index: 1 }).toArray();
  t.deepEqual(
    items.map((i) => i.status),
    texts.map(() => 'succeeded'),
  );
  t.deepEqual(
    items.map((i) => i.attempt),
    texts.map(() => 0),
    'no item started again',
  );
  t.is((await createLedger(mongo.db).balanceOf(accountId)).balance, 100 - size * HASH_TEXT.cost, 'each item charged once');
});

test.serial(
  'a wait batch that no grant rescues gives up after its wait, as stop: the rest skipped with insufficient_credits, exact counts and charges',
  async (t) => {
    const credits = 2 * HASH_TEXT.cost;
    const { accountId, batchId, texts } = await batchOf(credits, 7, 'wait');
    const handle = await startRunner({ accountId });
    await runnerEnded(handle.workflowId);

    const { batches, batchItems, events } = collections(mongo.db);
    const batch = await batches.findOne({ _id: batchId });
    t.like(batch, { status: 'completed', charged: credits, counts: { pending: 0, running: 0, succeeded: 2, failed: 0, skipped: 5 } });
    const paused = await events.find({ accountId, event: 'batch.paused' }).toArray();
    t.is(paused.length, 1, 'it paused for credits first');
    t.true(batch!.completedAt!.getTime() - paused[0]!.createdAt.getTime() >= CREDIT_WAIT_MS, 'and gave up only once its wait had passed');
    const skipped = await batchItems.find({ batchId, status: 'skipped' }).toArray();
    t.is(skipped.length, 5);
    t.true(
      skipped.every((i) => i.problem?.code === 'insufficient_credits' && i.charged === 0),
      JSON.stringify(skipped.map((i) => i.problem)),
    );
    t.is(texts.filter((text) => runs.get(text) === 1).length, 2, 'only the items the balance covered ran their tool');
    t.is(texts.filter((text) => (runs.get(text) ?? 0) > 1).length, 0);
    const completed = await events.find({ accountId, event: 'batch.completed' }).toArray();
    t.is(completed.length, 1);
    t.like(completed[0]!.data, { batchId, status: 'completed', counts: { succeeded: 2, skipped: 5 }, charged: credits });
    t.is((await createLedger(mongo.db).balanceOf(accountId)).balance, 0, 'exactly the items that ran are charged');
  },
);

test.serial("an item's end retried after its first run was cut short hands its slot on once, and the counts stay exact", async (t) => {
  const { accountId, batchId } = await batchOf(100, 5, 'stop');
  const progress = createBatchProgress(mongo.db);
  const { batches, batchItems } = collections(mongo.db);
  // Item 0 runs, as a fill starts it.
  const first = await progress.claim({ _id: batchId, total: 5 });
  t.is(first!.next, 1);
  await progress.markRunning({ _id: `${batchId}:0`, attempt: 0 }, 'call-0');
  const outcome = {
    batchId,
    index: 0,
    attempt: 0,
    total: 5,
    requestId: 'call-0',
    result: { ok: true as const, output: { hash: 'x' }, charged: 1, balance: 99 },
  };
  // Its end's first run: item 1 claimed, item 0 ended, item 1 marked running; then the run is cut short.
  const handed = await progress.finishItem(outcome, new Date());
  t.is(handed?.item.index, 1);
  // The retry (and one more) hands on the same item, claims nothing more, and moves no count twice.
  for (const retried of [true, false]) {
    const again = await progress.finishItem(outcome, new Date(), retried);
    t.is(again?.item.index, 1, `retried: ${retried}`);
  }
  const batch = await createBatches(mongo.db).byId(accountId, batchId);
  t.like(batch, { next: 3, counts: { pending: 3, running: 1, succeeded: 1, failed: 0, skipped: 0 }, charged: HASH_TEXT.cost });
  t.is(await batchItems.countDocuments({ batchId, status: 'running' }), 1, 'one slot held: item 1');
  // The index the unflagged repeat claimed (2) waits below `next` for a free slot, as any claimed item.
  t.like(await batchItems.findOne({ _id: `${batchId}:2` }), { status: 'pending' });
  t.is((await batches.findOne({ _id: batchId }))!.counts.pending, 5, 'running counts are never moved on the batch');
});

test.serial('live counts read above the settled mark agree with a full count at every step, items ending out of order', async (t) => {
  const { accountId, batchId } = await batchOf(100, 6, 'stop');
  const progress = createBatchProgress(mongo.db);
  const read = createBatches(mongo.db);
  const { batches, batchItems } = collections(mongo.db);
  const fullCount = async () => {
    const counts: Record<string, number> = {};
    for (const s of ['pending', 'running', 'succeeded', 'failed', 'skipped'])
      counts[s] = await batchItems.countDocuments({ batchId, status: s as never });
    return counts;
  };
  for (let i = 0; i < 3; i++) {
    await progress.claim({ _id: batchId, total: 6 });
    await progress.markRunning({ _id: `${batchId}:${i}`, attempt: 0 }, `call-${i}`);
  }
  // Ended without handing on (no `total`: as an item started before items handed on), out of order.
  const end = (index: number, ok: boolean) =>
    progress.finishItem({
      batchId,
      index,
      attempt: 0,
      requestId: `call-${index}`,
      result: ok
        ? { ok: true, output: { hash: 'x' }, charged: 1, balance: 99 }
        : { ok: false, error: { code: 'unavailable', message: 'down', extras: {} } },
    });
  const steps: [number, boolean, number][] = [
    [1, true, 0], // item 0 still runs: nothing settled
    [0, false, 2], // 0 and 1 ended: settled up to the running item 2
    [2, true, 3], // up to the first pending item
  ];
  for (const [index, ok, settledBelow] of steps) {
    await end(index, ok);
    const live = await read.byId(accountId, batchId);
    t.deepEqual(live!.counts, (await fullCount()) as never, `after item ${index} ended`);
    t.is((await batches.findOne({ _id: batchId }))!.settled?.below ?? 0, settledBelow, `settled mark after item ${index}`);
  }
  t.like(await read.byId(accountId, batchId), {
    counts: { pending: 3, running: 0, succeeded: 2, failed: 1, skipped: 0 },
    charged: 2 * HASH_TEXT.cost,
  });
});
