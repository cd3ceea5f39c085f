//! How a batch's items move on, each step a single-document update the database makes atomic:
//! an item is claimed (the batch's `next`) and marked running once its call started, or, when an
//! item ends with more of its batch to run, its successor is claimed first and marked running
//! after (the slot passes on without the runner); the call's last step ends the item with its
//! outcome; a stop (cancel, or credits short under `stop`) skips what is pending; and the batch
//! completes once nothing is pending or running. The counts are never moved beside the items: a
//! running batch's are counted from its items at each read (every item is in exactly one status,
//! so they add up to the total and a step repeated or cut short cannot skew them), and counted
//! once more, for good, when the batch completes.
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import type { BatchCounts, BatchDoc, BatchItemDoc } from '../calls/index.js';
import { derivedId } from '../../lib/ids.js';
import { batchItemRequestId } from '../../contracts/batch.js';
import type { ToolCallResult } from '../../contracts/call.js';
import { createEventRecorder, newEvent, type EventSink } from '../events/index.js';

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
  /** The batch's item count, so the next item can be claimed here; without it (items started before) the runner claims it. */
  total?: number;
  requestId: string;
  result: ToolCallResult;
}

/** The `batch.completed` event of a batch: one per batch, whoever notices the end first. */
const completedEventId = (batchId: string) => derivedId('evt', `batch.completed:${batchId}`);

const STATUSES: readonly (keyof BatchCounts)[] = ['pending', 'running', 'succeeded', 'failed', 'skipped'];
const ENDED = ['succeeded', 'failed', 'skipped'] as const;

type Settled = NonNullable<BatchDoc['settled']>;
const NOTHING_SETTLED: Settled = { below: 0, succeeded: 0, failed: 0, skipped: 0 };

/** An item ended with more of its batch to run: the next item, claimed and marked running, for its call to start. */
export interface HandedOn {
  batch: BatchDoc;
  item: BatchItemDoc;
}

export function batchEventData(doc: BatchDoc) {
  return { batchId: doc._id, tool: doc.tool, status: doc.status, total: doc.total, counts: doc.counts, charged: doc.charged };
}

/** A batch's counts as they are now, read from its items above the mark its reads keep. */
function createLiveCounts(db: Db) {
  const { batches, batchItems } = collections(db);

  /**
   * The batch with its counts and charge as they are now: counted from its items until it
   * completed. Never moved beside the items (a step repeated or cut short would skew them), and
   * never counted over every item at each read either (that grows with the batch): the items below
   * `settled.below` all ended, which cannot be undone, and their counts are kept on the batch by
   * the reads themselves, so a read counts only the items above it, which are few (the ones
   * running, about to run, or that ended out of order).
   *
   * The database reads the ended items and the running ones apart, not at one instant, so the
   * ended ones are read first, then the running ones counted, and the rest is pending: an item
   * that ends between the two is counted pending, never twice. So the counts always add up to the total, none is negative, an
   * ended count never goes back, and running is what was running at that count.
   */
  async function live(doc: BatchDoc): Promise<BatchDoc> {
    if (doc.completedAt) return doc;
    // A stopped batch's pending items are skipped while their calls may still end: counted in full until it completes (soon).
    const from = doc.stopped ? NOTHING_SETTLED : (doc.settled ?? NOTHING_SETTLED);
    // One read per status: each is planned on {batchId, status, index} and reads only what ended
    // above the mark (with `$in`, SecantusDB reads every item above it, pending ones too).
    const above = (
      await Promise.all(
        ENDED.map((status) =>
          batchItems
            .find({ batchId: doc._id, status, index: { $gte: from.below } }, { projection: { _id: 0, index: 1, status: 1 } })
            .toArray(),
        ),
      )
    ).flat();
    const running = await batchItems.countDocuments({ batchId: doc._id, status: 'running', index: { $gte: from.below } });
    const ended = { succeeded: from.succeeded, failed: from.failed, skipped: from.skipped };
    for (const item of above) ended[item.status as (typeof ENDED)[number]] += 1;
    const counts = { pending: doc.total - ended.succeeded - ended.failed - ended.skipped - running, running, ...ended };
    if (!doc.stopped) await settle(doc, from, above);
    return { ...doc, counts, charged: ended.succeeded * doc.cost };
  }

  /**
   * Moves the batch's settled mark over the items just above it that this read saw ended (each one
   * final), adding their counts, and keeps it on the batch unless another read moved it meanwhile.
   */
  async function settle(doc: BatchDoc, from: Settled, ended: Pick<BatchItemDoc, 'index' | 'status'>[]): Promise<void> {
    const byIndex = new Map(ended.map((item) => [item.index, item.status]));
    const next: Settled = { ...from };
    for (let status = byIndex.get(next.below); status !== undefined; status = byIndex.get(next.below)) {
      next[status as (typeof ENDED)[number]] += 1;
      next.below += 1;
    }
    if (next.below === from.below) return;
    await batches.updateOne({ _id: doc._id, 'settled.below': doc.settled?.below ?? { $exists: false } }, { $set: { settled: next } });
  }

  return live;
}

export function createBatchProgress(db: Db, onEvent?: EventSink) {
  const { batches, batchItems } = collections(db);
  const record = createEventRecorder(db, onEvent);
  const live = createLiveCounts(db);

  /** Claims the next index of a running batch (answered as `next - 1` of the batch answered), or null when none may start. */
  function claim(batch: Pick<BatchDoc, '_id' | 'total'>): Promise<BatchDoc | null> {
    return batches.findOneAndUpdate(
      { _id: batch._id, status: 'running', stopped: { $exists: false }, next: { $lt: batch.total } },
      { $inc: { next: 1 } },
      { returnDocument: 'after' },
    );
  }

  /** Marks a pending item running once its call started (a repeat, or an item skipped meanwhile, moves nothing). */
  async function markRunning(item: Pick<BatchItemDoc, '_id' | 'attempt'>, requestId: string): Promise<void> {
    await batchItems.updateOne({ _id: item._id, status: 'pending', attempt: item.attempt }, { $set: { status: 'running', requestId } });
  }

  /**
   * Records how an item's call ended. The call's outcome stands over a skip made while its start
   * was under way (it ran, and is charged as it answered). An item refused for credits in a `wait`
   * batch goes back to pending, for its next attempt after the batch resumes.
   *
   * An item that ended otherwise hands its slot on: the next item of its batch is claimed before
   * the item is marked ended (so the slot is never seen free by the runner, which would fill it
   * too), then marked running, and answered for its call to start. Null when nothing was handed
   * on (the batch has nothing left to claim, or is paused or stopped): the runner must look.
   * `retried`: an earlier run of this step may have ended the item (looked at first, so no index is claimed in vain).
   */
  async function finishItem(o: BatchItemOutcome, now = new Date(), retried = false): Promise<HandedOn | null> {
    const short = !o.result.ok && o.result.error.code === 'insufficient_credits';
    const id = `${o.batchId}:${o.index}`;
    if (short) {
      await finishShort(o, id, now);
      return null;
    }
    if (retried) {
      const was = await batchItems.findOne({ _id: id, attempt: o.attempt, callEnded: true }, { projection: { successor: 1 } });
      if (was) return was.successor === undefined ? null : handOnAgain(o.batchId, was.successor);
    }
    const claimed = o.total === undefined ? null : await claim({ _id: o.batchId, total: o.total });
    const successor = claimed ? claimed.next - 1 : undefined;
    const result = o.result;
    const ended = result.ok
      ? { output: result.output, charged: result.charged }
      : { problem: { code: result.error.code, detail: result.error.message, extras: result.error.extras }, charged: 0 };
    const end = await batchItems.updateOne(
      { _id: id, attempt: o.attempt, callEnded: { $ne: true } },
      {
        $set: {
          status: result.ok ? 'succeeded' : 'failed',
          requestId: o.requestId,
          callEnded: true,
          endedAt: now,
          ...ended,
          ...(successor !== undefined ? { successor } : {}),
        },
        $unset: { input: '', sealed: '' },
      },
    );
    if (end.matchedCount === 0) {
      // An earlier run of this step ended it (its end was lost): its successor holds the slot. The
      // index just claimed stays pending below `next`; the runner starts it when a slot is free.
      const was = await batchItems.findOne({ _id: id }, { projection: { successor: 1 } });
      return was?.successor === undefined ? null : handOnAgain(o.batchId, was.successor);
    }
    if (successor === undefined) {
      await completeIfDone(o.batchId, now);
      return null;
    }
    // Never started (it was at `next`): its first attempt. Null when the runner started it meanwhile, or a cancel skipped it.
    const item = await batchItems.findOneAndUpdate(
      { _id: `${o.batchId}:${successor}`, status: 'pending', attempt: 0 },
      { $set: { status: 'running', requestId: batchItemRequestId(claimed!.accountId, o.batchId, successor, 0) } },
      { returnDocument: 'after' },
    );
    return item ? { batch: claimed!, item } : null;
  }

  /** A retried end's successor, when it has not ended: marked running if it is still pending, to be started (again: a start is idempotent). */
  async function handOnAgain(batchId: string, index: number): Promise<HandedOn | null> {
    const [batch, was] = await Promise.all([batches.findOne({ _id: batchId }), batchItems.findOne({ _id: `${batchId}:${index}` })]);
    if (!batch || !was || (was.status !== 'pending' && was.status !== 'running') || was.index >= batch.next) return null;
    const item = await batchItems.findOneAndUpdate(
      { _id: was._id, status: { $in: ['pending', 'running'] }, attempt: was.attempt },
      { $set: { status: 'running', requestId: batchItemRequestId(batch.accountId, batchId, index, was.attempt) } },
      { returnDocument: 'after' },
    );
    return item ? { batch, item } : null;
  }

  /** An item refused for credits: back to pending in a `wait` batch (which pauses), else skipped and its batch stopped. */
  async function finishShort(o: BatchItemOutcome, id: string, now: Date): Promise<void> {
    const batch = await batches.findOne({ _id: o.batchId });
    if (!batch) return;
    if (batch.onInsufficientCredits === 'wait' && !batch.stopped) {
      await batchItems.updateOne(
        { _id: id, attempt: o.attempt, callEnded: { $ne: true } },
        { $set: { status: 'pending' }, $inc: { attempt: 1 }, $unset: { requestId: '' } },
      );
      await pause(batch, now);
      return;
    }
    const error = (o.result as Extract<ToolCallResult, { ok: false }>).error;
    await batchItems.updateOne(
      { _id: id, attempt: o.attempt, callEnded: { $ne: true } },
      {
        $set: {
          status: 'skipped',
          requestId: o.requestId,
          callEnded: true,
          endedAt: now,
          problem: { code: error.code, detail: error.message, extras: error.extras },
          charged: 0,
        },
        $unset: { input: '', sealed: '' },
      },
    );
    await stop(o.batchId, 'insufficient_credits', now);
  }

  /** Pauses a running `wait` batch (once: `batch.paused` is told by the item that paused it). */
  async function pause(batch: BatchDoc, now: Date): Promise<void> {
    const paused = await batches.findOneAndUpdate(
      { _id: batch._id, status: 'running', stopped: { $exists: false } },
      { $set: { status: 'paused', pausedAt: now } },
      { returnDocument: 'after' },
    );
    if (paused)
      await record({
        ...newEvent(batch.accountId, 'batch.paused', batchEventData(await live(paused)), now),
        id: derivedId('evt', `batch.paused:${batch._id}:${now.getTime()}`),
      });
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
    await batchItems.updateMany(
      { batchId: doc._id, status: 'pending' },
      { $set: { status: 'skipped', problem, charged: 0, endedAt: now }, $unset: { input: '', sealed: '' } },
    );
    await completeIfDone(doc._id, now);
  }

  /**
   * Completes a batch with nothing pending or running (the counts counted again from its items)
   * and tells `batch.completed` once. A cancelled batch keeps its status and gains `completedAt`.
   */
  async function completeIfDone(batchId: string, now: Date): Promise<void> {
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
    const counts = Object.fromEntries(
      await Promise.all(STATUSES.map(async (s) => [s, await batchItems.countDocuments({ batchId, status: s })])),
    ) as BatchCounts;
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

  return { claim, markRunning, finishItem, settleStopped, completeIfDone, resumeOrGiveUp, live };
}

export type BatchProgress = ReturnType<typeof createBatchProgress>;
