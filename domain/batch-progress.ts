//! How a batch's items move on, each step a single-document update the database makes atomic:
//! the runner claims the next index and marks the item running once its call started; the call's
//! last step ends the item with its outcome; a stop (cancel, or credits short under `stop`) skips
//! what is pending; and the batch completes once nothing is pending or running. The counts move
//! with each item's change (from the status it had to the one it takes), so a repeated step moves
//! nothing twice, and are counted again from the items when the batch completes.
import type { Db } from 'mongodb';
import { collections } from '../lib/mongo.js';
import type { BatchCounts, BatchDoc, BatchItemDoc } from '../lib/mongo-documents.js';
import { derivedId } from '../lib/ids.js';
import type { ToolCallResult } from '../lib/temporal-shared.js';
import { createEventRecorder, newEvent, type EventSink } from './events.js';

/** A `wait` batch waits this long for credits, then gives up as a `stop` batch would. */
export const BATCH_CREDIT_WAIT_MS = 7 * 24 * 60 * 60 * 1000;

/** The problem of an item skipped because its batch was cancelled. */
const CANCELLED = { code: 'cancelled', detail: 'The batch was cancelled before this item ran.', extras: {} };

/** The problem of an item skipped because the balance could not cover it (a `stop` batch). */
const CREDITS_SHORT = { code: 'insufficient_credits', detail: 'The balance could not cover this item, so the batch stopped.', extras: {} };

/** How an item's call ended, as its workflow's last step reports it. */
export interface BatchItemOutcome {
  batchId: string;
  index: number;
  /** The item's attempt the call was started for (a `wait` batch runs an item again after a pause). */
  attempt: number;
  requestId: string;
  result: ToolCallResult;
}

/** The `batch.completed` event of a batch: one per batch, whoever notices the end first. */
const completedEventId = (batchId: string) => derivedId('evt', `batch.completed:${batchId}`);

const STATUSES: readonly (keyof BatchCounts)[] = ['pending', 'running', 'succeeded', 'failed', 'skipped'];

/** A `$inc` moving one item's count from one status to another. */
function move(from: keyof BatchCounts, to: keyof BatchCounts, n = 1): Record<string, number> {
  return from === to ? {} : { [`counts.${from}`]: -n, [`counts.${to}`]: n };
}

export function batchEventData(doc: BatchDoc) {
  return { batchId: doc._id, tool: doc.tool, status: doc.status, total: doc.total, counts: doc.counts, charged: doc.charged };
}

export function createBatchProgress(db: Db, onEvent?: EventSink) {
  const { batches, batchItems } = collections(db);
  const record = createEventRecorder(db, onEvent);

  /** The next index of a running batch to start, or null when none may start. */
  async function claim(batch: Pick<BatchDoc, '_id' | 'total'>): Promise<number | null> {
    const doc = await batches.findOneAndUpdate(
      { _id: batch._id, status: 'running', stopped: { $exists: false }, next: { $lt: batch.total } },
      { $inc: { next: 1 } },
      { returnDocument: 'after' },
    );
    return doc ? doc.next - 1 : null;
  }

  /**
   * Marks pending items running once their calls started (a repeat, or an item skipped meanwhile,
   * moves nothing), then moves the batch's counts once for all that moved.
   */
  async function markRunning(batchId: string, started: { item: Pick<BatchItemDoc, '_id' | 'attempt'>; requestId: string }[]): Promise<void> {
    const moved = await Promise.all(
      started.map(({ item, requestId }) => batchItems.findOneAndUpdate({ _id: item._id, status: 'pending', attempt: item.attempt }, { $set: { status: 'running', requestId } })),
    );
    const n = moved.filter(Boolean).length;
    if (n > 0) await batches.updateOne({ _id: batchId }, { $inc: move('pending', 'running', n) });
  }

  /**
   * Records how an item's call ended. The call's outcome stands over a skip made while its start
   * was under way (it ran, and is charged as it answered). An item refused for credits in a `wait`
   * batch goes back to pending, for its next attempt after the batch resumes.
   */
  async function finishItem(o: BatchItemOutcome, now = new Date()): Promise<void> {
    const short = !o.result.ok && o.result.error.code === 'insufficient_credits';
    const id = `${o.batchId}:${o.index}`;
    if (short) {
      const batch = await batches.findOne({ _id: o.batchId });
      if (!batch) return;
      if (batch.onInsufficientCredits === 'wait' && !batch.stopped) {
        const before = await batchItems.findOneAndUpdate(
          { _id: id, attempt: o.attempt, callEnded: { $ne: true } },
          { $set: { status: 'pending' }, $inc: { attempt: 1 }, $unset: { requestId: '' } },
        );
        if (before) await batches.updateOne({ _id: o.batchId }, { $inc: move(before.status, 'pending') });
        await pause(batch, now);
        return;
      }
    }
    const result = o.result;
    const status: BatchItemDoc['status'] = result.ok ? 'succeeded' : short ? 'skipped' : 'failed';
    const ended = result.ok
      ? { output: result.output, charged: result.charged }
      : { problem: { code: result.error.code, detail: result.error.message, extras: result.error.extras }, charged: 0 };
    const before = await batchItems.findOneAndUpdate(
      { _id: id, attempt: o.attempt, callEnded: { $ne: true } },
      { $set: { status, requestId: o.requestId, callEnded: true, endedAt: now, ...ended }, $unset: { input: '', sealed: '' } },
    );
    let after: BatchDoc | null = null;
    if (before) {
      const charged = result.ok ? result.charged : 0;
      after = await batches.findOneAndUpdate({ _id: o.batchId }, { $inc: { ...move(before.status, status), ...(charged ? { charged } : {}) } }, { returnDocument: 'after' });
    }
    if (short) await stop(o.batchId, 'insufficient_credits', now);
    else await completeIfDone(o.batchId, now, after);
  }

  /** Pauses a running `wait` batch (once: `batch.paused` is told by the item that paused it). */
  async function pause(batch: BatchDoc, now: Date): Promise<void> {
    const paused = await batches.findOneAndUpdate({ _id: batch._id, status: 'running', stopped: { $exists: false } }, { $set: { status: 'paused', pausedAt: now } }, { returnDocument: 'after' });
    if (paused) await record({ ...newEvent(batch.accountId, 'batch.paused', batchEventData(paused), now), id: derivedId('evt', `batch.paused:${batch._id}:${now.getTime()}`) });
  }

  /** Stops a batch: nothing starts any more, and what is pending is skipped. */
  async function stop(batchId: string, why: NonNullable<BatchDoc['stopped']>, now: Date): Promise<void> {
    await batches.updateOne({ _id: batchId, stopped: { $exists: false } }, { $set: { stopped: why, pausedAt: null } });
    const doc = await batches.findOne({ _id: batchId });
    if (doc) await settleStopped(doc, now);
  }

  /** Skips a stopped batch's pending items, then completes it if nothing runs. */
  async function settleStopped(doc: BatchDoc, now: Date): Promise<void> {
    const problem = doc.stopped === 'cancelled' ? CANCELLED : CREDITS_SHORT;
    const skipped = await batchItems.updateMany(
      { batchId: doc._id, status: 'pending' },
      { $set: { status: 'skipped', problem, charged: 0, endedAt: now }, $unset: { input: '', sealed: '' } },
    );
    if (skipped.modifiedCount > 0) await batches.updateOne({ _id: doc._id }, { $inc: move('pending', 'skipped', skipped.modifiedCount) });
    await completeIfDone(doc._id, now);
  }

  /**
   * Completes a batch with nothing pending or running (the counts counted again from its items)
   * and tells `batch.completed` once. A cancelled batch keeps its status and gains `completedAt`.
   * `seen`: the batch as the caller just read it, which spares the read when it has items to claim.
   */
  async function completeIfDone(batchId: string, now: Date, seen?: BatchDoc | null): Promise<void> {
    // A batch the caller has just read with items still to claim is not done: whoever ends its last item completes it.
    if (seen && !seen.stopped && seen.next < seen.total) return;
    const doc = await batches.findOne({ _id: batchId });
    if (!doc || doc.completedAt || doc.status === 'paused') return;
    if (!doc.stopped && doc.next < doc.total) return;
    if (await batchItems.findOne({ batchId, status: { $in: ['pending', 'running'] } }, { projection: { _id: 1 } })) return;
    const counts = await countItems(batchId);
    const status = doc.stopped === 'cancelled' ? 'cancelled' : 'completed';
    const done = await batches.findOneAndUpdate(
      { _id: batchId, completedAt: null },
      { $set: { status, counts, charged: counts.succeeded * doc.cost, completedAt: now, pausedAt: null } },
      { returnDocument: 'after' },
    );
    if (done) await record({ ...newEvent(done.accountId, 'batch.completed', batchEventData(done), now), id: completedEventId(batchId) });
  }

  async function countItems(batchId: string): Promise<BatchCounts> {
    const counts = Object.fromEntries(await Promise.all(STATUSES.map(async (s) => [s, await batchItems.countDocuments({ batchId, status: s })]))) as BatchCounts;
    return counts;
  }

  /**
   * Resumes the account's paused batches (credits arrived), and gives up on those paused past
   * `waitMs` (BATCH_CREDIT_WAIT_MS) as `stop` would. Answers when the next paused batch must be looked at.
   */
  async function resumeOrGiveUp(accountId: string, resume: boolean, now: Date, waitMs = BATCH_CREDIT_WAIT_MS): Promise<number | undefined> {
    let wakeAt: number | undefined;
    for (const doc of await batches.find({ accountId, status: 'paused' }).toArray()) {
      const until = (doc.pausedAt ?? now).getTime() + waitMs;
      if (until <= now.getTime()) {
        await batches.updateOne({ _id: doc._id, status: 'paused' }, { $set: { status: 'running' } });
        await stop(doc._id, 'insufficient_credits', now);
      } else if (resume) {
        await batches.updateOne({ _id: doc._id, status: 'paused' }, { $set: { status: 'running', pausedAt: null } });
      } else {
        wakeAt = Math.min(wakeAt ?? until, until);
      }
    }
    return wakeAt;
  }

  return { claim, markRunning, finishItem, settleStopped, completeIfDone, resumeOrGiveUp };
}

export type BatchProgress = ReturnType<typeof createBatchProgress>;
