//! The batch runner's items yield to single calls (workflows/batch-runner.ts, on the stack's
//! Temporal, in a namespace of this file's own): while a single call runs on the items' worker, each
//! item starts the next one BATCH_YIELD_MS later; with none, at once.
import test from 'ava';
import { eventually } from '../helpers/webhook-receiver.js';
import { createAccounts } from '../../domain/accounts/accounts.js';
import { collections } from '../../lib/mongo.js';
import { newId } from '../../lib/ids.js';
import { batchItemRequestId } from '../../contracts/batch.js';
import { WORKFLOW_TYPES, callTaskQueue } from '../../contracts/temporal-names.js';
import {
  batchOf,
  client,
  CONCURRENCY,
  HASH_TEXT,
  HOLD,
  mongo,
  release,
  runnerEnded,
  singleCalls,
  startRunner,
  useBatchRunnerBed,
  YIELD_MS,
} from './support/batch-runner-bed.js';

useBatchRunnerBed('batch-runner-yield-tests', { workers: true });

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
