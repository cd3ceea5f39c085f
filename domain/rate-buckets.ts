//! Request rates kept in the database, so a limit holds for the service as a whole: however many
//! API replicas answer an account, it gets its documented rate once.
//!
//! Each bucket is one document holding one number, the time its bucket would next be full were
//! no token taken (the theoretical arrival time of the generic cell rate algorithm). A bucket of
//! `rate` tokens a second and a capacity of twice that has `(now + capacity / rate - tat) * rate`
//! tokens; a call takes one when that is at least one. The take is one guarded update: a pipeline
//! that decides and moves `tat` in the same single-document write, so replicas taking from the
//! same bucket at once never both spend its last token, and the answer (allowed, the time) comes
//! back with it: one round trip per bucket, allowed or refused (two for a bucket's first take,
//! which inserts it).
//!
//! Times are the callers' clocks (epoch ms): replicas' clocks a few milliseconds apart move a
//! bucket by as much. A bucket whose `tat` has passed is full, as good as absent: the sweep
//! deletes those.
import type { Db } from 'mongodb';
import { collections, isDuplicateKey } from '../lib/mongo.js';

/** What one take says, as the rate limit's headers and its 429 tell it. */
export interface Take {
  allowed: boolean;
  /** Whole tokens left once this call's is taken. */
  remaining: number;
  /** Seconds until a token is there (at least 1). */
  retryAfter: number;
  /** Seconds until the bucket is full again. */
  reset: number;
}

/** How much a sum of float milliseconds may be off and still count as equal (rates such as 3/s). */
const EPSILON_MS = 1e-6;

/** The answer a bucket at `tat` gives at `now`, for a bucket of `rate` a second up to `capacity`. */
export function takeOf(allowed: boolean, tat: number, now: number, rate: number, capacity: number): Take {
  const intervalMs = 1000 / rate;
  const tokens = Math.min(capacity, (now + capacity * intervalMs - tat) / intervalMs + EPSILON_MS);
  return {
    allowed,
    remaining: Math.max(0, Math.floor(tokens)),
    retryAfter: Math.max(1, Math.ceil((1 - tokens) / rate - EPSILON_MS)),
    reset: Math.max(0, Math.ceil((capacity - tokens) / rate - EPSILON_MS)),
  };
}

export function createRateBuckets(db: Db) {
  const { rateBuckets } = collections(db);

  return {
    /**
     * Takes a token from `key`'s bucket, which refills at `rate` a second up to `capacity`, at
     * `now` (epoch ms). Rejects as the database does (the caller decides what an outage means);
     * `timeoutMS` bounds the wait for it.
     */
    async take(key: string, rate: number, capacity: number, now: number, options: { timeoutMS?: number } = {}): Promise<Take> {
      const intervalMs = 1000 / rate;
      // A call is allowed when the bucket, after it, is not past full: max(tat, now) + interval
      // <= now + capacity * interval, i.e. tat <= now + (capacity - 1) * interval.
      const latest = now + (capacity - 1) * intervalMs + EPSILON_MS;
      const tat = '$tat';
      const timeout = options.timeoutMS ? { timeoutMS: options.timeoutMS } : {};
      for (let tries = 0; ; tries++) {
        const doc = await rateBuckets.findOneAndUpdate(
          { _id: key },
          [
            { $set: { ok: { $lte: [tat, latest] } } },
            { $set: { tat: { $cond: ['$ok', { $add: [{ $max: [tat, now] }, intervalMs] }, tat] } } },
          ],
          { returnDocument: 'after', projection: { ok: 1, tat: 1 }, ...timeout },
        );
        if (doc) return takeOf(doc.ok, doc.tat, now, rate, capacity);
        // No bucket yet (or swept, full): this take makes it. Not an upsert: SecantusDB answered
        // some of several concurrent first upserts of one document with no document at all.
        try {
          await rateBuckets.insertOne({ _id: key, tat: now + intervalMs, ok: true }, timeout);
          return takeOf(true, now + intervalMs, now, rate, capacity);
        } catch (err) {
          // Another take made it first: take from it.
          if (!isDuplicateKey(err) || tries > 3) throw err;
        }
      }
    },

    /** Deletes the buckets that are full by `now` (nothing taken from them for a while). */
    async sweep(now: number): Promise<number> {
      return (await rateBuckets.deleteMany({ tat: { $lt: now } })).deletedCount;
    },
  };
}

export type RateBuckets = ReturnType<typeof createRateBuckets>;
