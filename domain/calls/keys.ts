//! Per-call keys: a random key per call that seals its secret fields, destroyed when the call
//! ends so that what stays in Temporal history can no longer be read (crypto-shredding).
import { randomBytes } from 'node:crypto';
import { Binary, type Db } from 'mongodb';
import { collections, isDuplicateKey } from '../../lib/mongo.js';

/** A key outlives its call only if the call never ended normally; the sweeper removes it then. */
export const CALL_KEY_TTL_MS = 60 * 60 * 1000;
/** Each lost race needs another write between ours, so a few attempts always end it. */
const ISSUE_ATTEMPTS = 5;

function toBuffer(key: unknown): Buffer {
  if (key instanceof Binary) return Buffer.from(key.buffer);
  if (Buffer.isBuffer(key)) return key;
  throw new Error('call key has an unexpected type');
}

export function createCallKeys(db: Db) {
  const { callKeys } = collections(db);
  return {
    /**
     * The call's key, created on first use; concurrent issuers for one call get the same key, or,
     * when the call was answered and its key destroyed meanwhile, a fresh one (a repeat that only
     * joins the finished workflow never opens it).
     */
    async issue(requestId: string): Promise<Buffer> {
      for (let attempt = 1; ; attempt++) {
        const fresh = { key: new Binary(randomBytes(32)) as never, expiresAt: new Date(Date.now() + CALL_KEY_TTL_MS) };
        // Upserts of one id racing (repeats of one Idempotency-Key arriving together): the database
        // may refuse the losers (duplicate key) or answer them with no document; the winner's key
        // is then read. It may be gone again by that read (the first repeat answered and destroyed
        // it): the upsert is asked again, and writes a new key.
        const doc =
          (await callKeys
            .findOneAndUpdate({ _id: requestId }, { $setOnInsert: fresh }, { upsert: true, returnDocument: 'after' })
            .catch((err: unknown) => {
              if (isDuplicateKey(err)) return null;
              throw err;
            })) ?? (await callKeys.findOne({ _id: requestId }));
        if (doc) return toBuffer(doc.key);
        if (attempt === ISSUE_ATTEMPTS) throw new Error(`call key ${requestId}: neither written nor found in ${attempt} attempts`);
      }
    },
    async fetch(requestId: string): Promise<Buffer | null> {
      const doc = await callKeys.findOne({ _id: requestId });
      return doc ? toBuffer(doc.key) : null;
    },
    async destroy(requestId: string): Promise<void> {
      await callKeys.deleteOne({ _id: requestId });
    },
  };
}

export type CallKeys = ReturnType<typeof createCallKeys>;
