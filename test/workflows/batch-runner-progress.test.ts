//! A batch's progress on the database as the runner's items move it (domain/batches/progress.ts):
//! an item's end retried after its first run was cut short hands its slot on once, and the live
//! counts read above the settled mark agree with a full count at every step.
import test from 'ava';
import { createBatches } from '../../domain/batches/batches.js';
import { createBatchProgress } from '../../domain/batches/progress.js';
import { collections } from '../../lib/mongo.js';
import { batchOf, HASH_TEXT, mongo, useBatchRunnerBed } from './support/batch-runner-bed.js';

useBatchRunnerBed('batch-runner-progress-tests', { workers: false });

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
