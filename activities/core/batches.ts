//! The batch runner's one activity: fills an account's free batch slots (BATCH_CONCURRENCY, all
//! its batches together) with the next items, oldest batch first. Each item starts as the call it
//! would have been, the `toolCall` workflow on its tool's queue, with `BatchId` beside `AccountId`
//! and `Tool`; its input comes from the database, so none of it is in the runner's history.
import type { Db } from 'mongodb';
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { createBatchProgress, batchItemId } from '../../domain/batches/index.js';
import { createLedger } from '../../domain/ledger/index.js';
import type { EventSink } from '../../domain/events/index.js';
import { collections } from '../../lib/mongo.js';
import type { BatchDoc } from '../../domain/calls/index.js';
import type { BatchFill } from '../../contracts/batch.js';
import { createBatchStarter } from '../batch-start.js';

/** A fill's heartbeat: well within the runner's heartbeat timeout (10 s). */
const HEARTBEAT_EVERY_MS = 2_000;

export interface BatchActivityDeps {
  db: Db;
  client: Client;
  /** SECRET_KEY: items' secret fields are sealed with it at rest. */
  secretKey: Buffer;
  /** BATCH_CONCURRENCY. */
  concurrency: number;
  /** How long a `wait` batch waits for credits before it gives up (default BATCH_CREDIT_WAIT_MS, 7 days). */
  creditWaitMs?: number;
  onEvent?: EventSink;
}

export function createBatchActivities(deps: BatchActivityDeps) {
  const { batches, batchItems } = collections(deps.db);
  const progress = createBatchProgress(deps.db, deps.onEvent);
  const ledger = createLedger(deps.db, deps.onEvent);
  const starter = createBatchStarter(deps);

  /**
   * Starts the calls of a batch's items that are still pending (read in one page, started side by
   * side), each marked running as soon as its own call has started: not after the slowest start,
   * which would leave a started call counted as pending meanwhile (a batch read as paused with
   * nothing running while one of its calls still runs and is about to be charged).
   */
  async function launch(batch: BatchDoc, indexes: number[]): Promise<void> {
    if (indexes.length === 0) return;
    const items = await batchItems.find({ _id: { $in: indexes.map((i) => batchItemId(batch._id, i)) }, status: 'pending' }).toArray();
    await Promise.all(items.map(async (item) => progress.markRunning(item, await starter.start(batch, item))));
  }

  /** Paused batches: resumed once the balance covers an item, given up on after their wait. */
  async function resumable(accountId: string, now: Date): Promise<number | undefined> {
    const paused = await batches.find({ accountId, status: 'paused' }, { projection: { cost: 1 } }).toArray();
    if (paused.length === 0) return undefined;
    const { balance } = await ledger.balanceOf(accountId);
    return progress.resumeOrGiveUp(
      accountId,
      paused.some((b) => balance >= b.cost),
      now,
      deps.creditWaitMs,
    );
  }

  return {
    async fillBatchSlots(accountId: string): Promise<BatchFill> {
      // Alive while it waits on the database or Temporal: see the runner's heartbeat timeout.
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
      try {
        return await fill(accountId);
      } finally {
        clearInterval(beat);
      }
    },
  };

  async function fill(accountId: string): Promise<BatchFill> {
    const now = new Date();
    const wakeAt = await resumable(accountId, now);
    // Not ended: paused ones hold slots with their running items, the others may also start some.
    const open = await batches
      .find({ accountId, status: { $in: ['running', 'cancelled', 'paused'] }, completedAt: null })
      .sort({ createdAt: 1 })
      .toArray();
    const active = open.filter((batch) => batch.status !== 'paused');
    for (const batch of active) if (batch.stopped) await progress.settleStopped(batch, now);
    const live = active.filter((batch) => !batch.stopped);
    // Items hand their slots on without this fill (domain/batches/progress.ts: the next item is
    // claimed, then the ended one marked ended, then the next marked running), so the free slots
    // are read so as never to count one that is being handed on: claimed-but-pending items first,
    // then what runs, then how many were claimed meanwhile (each such claim is a slot changing
    // hands that the count may have missed). Claimed-but-pending items are an ending item's next
    // one about to be marked (starting it here too starts it once), a start or its mark cut short,
    // or items back from a pause for credits: started, newest claim first, before anything new.
    const pending = await Promise.all(
      live.map((batch) =>
        batchItems
          .find({ batchId: batch._id, status: 'pending', index: { $lt: batch.next } }, { projection: { index: 1 } })
          .sort({ index: -1 })
          .limit(deps.concurrency)
          .toArray(),
      ),
    );
    const counted = await Promise.all(open.map((batch) => batchItems.countDocuments({ batchId: batch._id, status: 'running' })));
    let running = counted.reduce((a, b) => a + b, 0);
    const since = await Promise.all(
      live.map(
        async (batch) => ((await batches.findOne({ _id: batch._id }, { projection: { next: 1 } }))?.next ?? batch.next) - batch.next,
      ),
    );
    let free = deps.concurrency - running - since.reduce((a, b) => a + b, 0);
    for (const [i, batch] of live.entries()) {
      const again = pending[i]!.slice(0, Math.max(0, free));
      await launch(
        batch,
        again.map((item) => item.index),
      );
      free -= again.length;
      running += again.length;
    }
    let waiting = 0;
    for (const batch of live) {
      const claimed: number[] = [];
      let next = batch.next;
      let refused = false; // paused or stopped since it was read
      while (claimed.length < free && next < batch.total) {
        const doc = await progress.claim(batch);
        if (!doc) {
          refused = true;
          break;
        }
        claimed.push(doc.next - 1);
        next = doc.next;
      }
      await launch(batch, claimed);
      free -= claimed.length;
      running += claimed.length;
      if (!refused && next < batch.total) waiting += batch.total - next;
      // A batch whose items all ended before this fill saw them (or that had none left) completes here.
      else await progress.completeIfDone(batch._id, now);
    }
    return { running, waiting, ...(wakeAt !== undefined ? { wakeAt } : {}) };
  }
}

export type BatchActivities = ReturnType<typeof createBatchActivities>;
