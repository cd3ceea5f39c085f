//! Batches as records: a batch (`batches`) and its items (`batch_items`), made at once with every
//! item's input, read by the API (the batch, its items, its finished items in the order they ended)
//! and cancelled. How items move on (claimed, ended, skipped) is `progress.ts`.
import { type Static, Type } from '@sinclair/typebox';
import type { Db, Filter } from 'mongodb';
import { collections, insertIfAbsent, isDuplicateKey, newestFirst, type PageAfter, viewOf } from '../../lib/mongo.js';
import { ComponentRef, Credits, Id, NullableTimestamp, StringEnum, Timestamp } from '../../lib/schema-types.js';
import { withTraceparent } from '../../lib/trace-context.js';
import { BatchCounts, type BatchDoc, type BatchItemDoc } from '../calls/index.js';
import { createBatchProgress } from './progress.js';
import type { EventSink } from '../events/index.js';

/** At most this many items in one batch (docs/API.md, "Batches"). */
export const MAX_BATCH_ITEMS = 10_000;

/** Items are written in groups of this many: one insert per group, not per item. */
const INSERT_GROUP = 1_000;

export const batchItemId = (batchId: string, index: number) => `${batchId}:${index}`;

/** One item as the API validated it: its input in clear, its secret fields sealed (lib/sealed.ts). */
export interface NewBatchItem {
  input: Record<string, unknown>;
  sealed?: string;
}

export interface NewBatch {
  id: string;
  accountId: string;
  tool: string;
  cost: number;
  onInsufficientCredits: BatchDoc['onInsufficientCredits'];
  /** The destination each item's file goes to, checked to be the account's. */
  destination?: string;
  items: NewBatchItem[];
  now: Date;
}

/** A batch as the API answers it: its type, and the `Batch` schema of the OpenAPI document. */
export const Batch = Type.Object(
  {
    id: Id('bat', 'Batch id.'),
    tool: Type.String(),
    status: StringEnum(['running', 'paused', 'completed', 'cancelled'], {
      description: '`paused`: waiting for credits (`wait`). `cancelled` gains `completedAt` once its running items ended.',
    }),
    total: Type.Integer({ minimum: 1, maximum: MAX_BATCH_ITEMS }),
    counts: ComponentRef('BatchCounts', BatchCounts),
    charged: Credits('Credits charged so far.'),
    onInsufficientCredits: StringEnum(['stop', 'wait']),
    createdAt: Timestamp('When the batch was made.'),
    completedAt: NullableTimestamp('When its last item ended; null until then.'),
    destination: Type.Optional(
      Type.String({
        pattern: '^dst_[0-9A-Za-z]+$',
        description: "The destination its items' files go to; only on a batch that names one.",
      }),
    ),
  },
  { description: 'A batch of calls of one tool.' },
);
export type BatchView = Static<typeof Batch>;

export const batchView = (doc: BatchDoc): BatchView =>
  viewOf(doc, ['tool', 'status', 'total', 'counts', 'charged', 'onInsufficientCredits', 'destination', 'createdAt', 'completedAt']);

export const noCounts = (pending: number): BatchCounts => ({ pending, running: 0, succeeded: 0, failed: 0, skipped: 0 });

export function createBatches(db: Db, onEvent?: EventSink) {
  const { batches, batchItems } = collections(db);
  const progress = createBatchProgress(db, onEvent);

  /** The account's batch, with its counts as they are now; null for another account's or none. */
  async function byId(accountId: string, id: string): Promise<BatchDoc | null> {
    const doc = await batches.findOne({ _id: id, accountId });
    return doc && progress.live(doc);
  }

  return {
    /**
     * Writes the items, then the batch: the runner never finds a batch whose items are not all
     * there. Safe to repeat (an idempotent retry of a request that failed half way): what exists
     * is kept. Answers the batch as stored.
     */
    async create(b: NewBatch): Promise<BatchDoc> {
      for (let from = 0; from < b.items.length; from += INSERT_GROUP) {
        const docs: BatchItemDoc[] = b.items.slice(from, from + INSERT_GROUP).map((item, i) => ({
          _id: batchItemId(b.id, from + i),
          batchId: b.id,
          accountId: b.accountId,
          index: from + i,
          status: 'pending',
          attempt: 0,
          input: item.input,
          ...(item.sealed ? { sealed: item.sealed } : {}),
        }));
        await batchItems.insertMany(docs, { ordered: false }).catch((err: unknown) => {
          if (!isDuplicateKey(err)) throw err;
        });
      }
      const doc: BatchDoc = {
        _id: b.id,
        accountId: b.accountId,
        tool: b.tool,
        cost: b.cost,
        status: 'running',
        total: b.items.length,
        next: 0,
        counts: noCounts(b.items.length),
        charged: 0,
        onInsufficientCredits: b.onInsufficientCredits,
        ...(b.destination ? { destination: b.destination } : {}),
        pausedAt: null,
        createdAt: b.now,
        completedAt: null,
        ...withTraceparent(),
      };
      await insertIfAbsent(batches, doc);
      const stored = await batches.findOne({ _id: b.id });
      return stored ? progress.live(stored) : doc;
    },

    byId,

    /** Whether the account's batch has ended (every item did): a read without its counts. */
    async isDone(accountId: string, id: string): Promise<boolean> {
      return (await batches.findOne({ _id: id, accountId }, { projection: { completedAt: 1 } }))?.completedAt != null;
    },

    /** Up to `limit` batches newest first (counts as they are now), and whether more follow. */
    async page(accountId: string, q: { limit: number; after?: PageAfter }): Promise<{ rows: BatchDoc[]; more: boolean }> {
      const { rows, more } = await newestFirst(batches, { accountId }, q);
      return { rows: await Promise.all(rows.map(progress.live)), more };
    },

    /** Up to `limit` items in index order from `fromIndex`, of one status when given. */
    async items(
      batchId: string,
      q: { limit: number; fromIndex: number; status?: BatchItemDoc['status'] },
    ): Promise<{ rows: BatchItemDoc[]; more: boolean }> {
      const filter: Filter<BatchItemDoc> = { batchId, index: { $gte: q.fromIndex } };
      if (q.status) filter.status = q.status;
      const rows = await batchItems
        .find(filter, { projection: { input: 0, sealed: 0 } })
        .sort({ index: 1 })
        .limit(q.limit + 1)
        .toArray();
      return { rows: rows.slice(0, q.limit), more: rows.length > q.limit };
    },

    /** Items that ended after `after` (their end, then id), in the order they ended. */
    ended(batchId: string, after: { at: Date; id: string } | undefined, limit: number): Promise<BatchItemDoc[]> {
      const filter: Filter<BatchItemDoc> = { batchId, endedAt: { $exists: true } };
      if (after) filter.$or = [{ endedAt: { $gt: after.at } }, { endedAt: after.at, _id: { $gt: after.id } }];
      return batchItems
        .find(filter, { projection: { input: 0, sealed: 0 } })
        .sort({ endedAt: 1, _id: 1 })
        .limit(limit)
        .toArray();
    },

    /**
     * Cancels a running or paused batch: no item starts any more, pending ones are skipped with
     * `cancelled`, running ones finish (and are charged) as usual. Null for a batch of another
     * account or none; a batch already ended is answered as it is.
     */
    async cancel(accountId: string, id: string, now = new Date()): Promise<BatchDoc | null> {
      await batches.updateOne(
        { _id: id, accountId, status: { $in: ['running', 'paused'] } },
        { $set: { status: 'cancelled', stopped: 'cancelled', pausedAt: null } },
      );
      const doc = await batches.findOne({ _id: id, accountId });
      if (!doc) return null;
      if (doc.stopped === 'cancelled') await progress.settleStopped(doc, now);
      return byId(accountId, id);
    },
  };
}

export type Batches = ReturnType<typeof createBatches>;
