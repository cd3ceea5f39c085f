//! Asynchronous tool calls (`Prefer: respond-async`): the record the API opens before it answers
//! 202, the outcome the call's workflow writes when it ends (the output, in GridFS when large),
//! what `GET /api/v1/calls` reads, and the 24-hour retention of the answer. Synchronous calls
//! never touch any of this.
import { GridFSBucket, type Db } from 'mongodb';
import { collections, insertIfAbsent, newestFirst, type PageAfter } from '../../lib/mongo.js';
import { putBytes, readBytes } from '../../lib/gridfs.js';
import type { CallDoc } from './documents.js';
import { derivedId } from '../../lib/ids.js';
import { createEventRecorder, newEvent, type EventSink } from '../events/index.js';
import type { ToolCallResult } from '../../contracts/call.js';

/** An ended call's answer is kept this long after it ended. */
export const CALL_ANSWER_RETENTION_MS = 24 * 60 * 60 * 1000;
/** After that, a read answers `call_expired` this long, then `not_found`. */
export const CALL_TOMBSTONE_MS = 7 * 24 * 60 * 60 * 1000;
/** Outputs larger than this (as JSON text) go to GridFS instead of the call's document. */
const INLINE_OUTPUT_BYTES = 256 * 1024;
const OUTPUT_BUCKET = 'call_outputs';

/** What the workflow's last step records (a local activity, run only for asynchronous calls). */
export interface CallOutcome {
  requestId: string;
  accountId: string;
  tool: string;
  result: ToolCallResult;
  /** A capture asked for with `Cache-Control`: the render cache entry its image is stored under once it succeeded. */
  cacheAs?: string;
}

/** One page of the account's calls, newest first. */
export interface CallPageQuery {
  limit: number;
  after?: PageAfter;
}

/** The `call.completed` event of a call: its id follows from the call, so a retried step records it once. */
export const callCompletedEventId = (requestId: string) => derivedId('evt', `call.completed:${requestId}`);

export function createAsyncCalls(db: Db, onEvent?: EventSink) {
  const { calls } = collections(db);
  const bucket = new GridFSBucket(db, { bucketName: OUTPUT_BUCKET });
  const record = createEventRecorder(db, onEvent);

  async function storeOutput(requestId: string, output: unknown): Promise<Pick<CallDoc, 'output' | 'outputFileId'>> {
    const text = JSON.stringify(output ?? null);
    if (Buffer.byteLength(text) <= INLINE_OUTPUT_BYTES) return { output: text };
    // A step retried after its upload but before its write left a copy nobody points at.
    for await (const old of bucket.find({ filename: requestId })) await bucket.delete(old._id);
    return { outputFileId: await putBytes(bucket, requestId, Buffer.from(text)) };
  }

  async function readOutput(doc: CallDoc): Promise<unknown> {
    if (doc.output !== undefined) return JSON.parse(doc.output);
    if (!doc.outputFileId) return null;
    return JSON.parse((await readBytes(bucket, doc.outputFileId)).toString('utf8'));
  }

  return {
    /** Opens the record of a call about to start; false when one exists (an idempotent repeat). */
    open: (doc: { requestId: string; accountId: string; tool: string; now: Date }) =>
      insertIfAbsent(calls, {
        _id: doc.requestId,
        accountId: doc.accountId,
        tool: doc.tool,
        status: 'running',
        createdAt: doc.now,
        completedAt: null,
        expiresAt: null,
        charged: 0,
      }),

    /** Forgets a call that never started (its 402 was answered instead of the 202). */
    discard: (requestId: string) => calls.deleteOne({ _id: requestId, status: 'running' }),

    /**
     * Records how the call ended and fires `call.completed`. Idempotent: a retry writes the same
     * outcome and the event, whose id follows from the call, is recorded once.
     */
    async finish(outcome: CallOutcome, now = new Date()): Promise<void> {
      const { result } = outcome;
      // Only a running call takes an outcome: a retry after the write leaves it (and its output file) alone.
      const current = await calls.findOne({ _id: outcome.requestId }, { projection: { status: 1 } });
      if (current?.status === 'running') {
        const ended: Partial<CallDoc> = { completedAt: now, expiresAt: new Date(now.getTime() + CALL_ANSWER_RETENTION_MS) };
        const set: Partial<CallDoc> = result.ok
          ? { ...ended, status: 'succeeded', charged: result.charged, ...(await storeOutput(outcome.requestId, result.output)) }
          : {
              ...ended,
              status: 'failed',
              charged: 0,
              problem: { code: result.error.code, detail: result.error.message, extras: result.error.extras },
            };
        await calls.updateOne({ _id: outcome.requestId, status: 'running' }, { $set: set });
      }
      const data = {
        requestId: outcome.requestId,
        tool: outcome.tool,
        status: result.ok ? 'succeeded' : 'failed',
        charged: result.ok ? result.charged : 0,
        code: result.ok ? null : result.error.code,
      };
      await record({ ...newEvent(outcome.accountId, 'call.completed', data, now), id: callCompletedEventId(outcome.requestId) });
    },

    byId: (accountId: string, requestId: string) => calls.findOne({ _id: requestId, accountId }),

    readOutput,

    /** Up to `limit` calls newest first, and whether more follow. */
    async page(accountId: string, q: CallPageQuery): Promise<{ rows: CallDoc[]; more: boolean }> {
      return newestFirst(calls, { accountId }, q, { projection: { output: 0 } });
    },

    /**
     * Drops the answers of calls that ended more than 24 h before `now` (the record stays, marked
     * expired, for CALL_TOMBSTONE_MS) and then the records themselves.
     */
    async sweep(now: number): Promise<{ expired: number; deleted: number }> {
      const due = { expiresAt: { $lt: new Date(now) }, expired: { $ne: true } };
      let expired = 0;
      for await (const doc of calls.find(due, { projection: { outputFileId: 1 } })) {
        if (doc.outputFileId) await bucket.delete(doc.outputFileId).catch(() => {}); // deleted by an earlier, interrupted sweep
        await calls.updateOne({ _id: doc._id }, { $set: { expired: true }, $unset: { output: '', outputFileId: '', problem: '' } });
        expired++;
      }
      const deleted = (await calls.deleteMany({ expiresAt: { $lt: new Date(now - CALL_TOMBSTONE_MS) } })).deletedCount;
      return { expired, deleted };
    },
  };
}

export type AsyncCalls = ReturnType<typeof createAsyncCalls>;
