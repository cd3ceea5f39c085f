//! Per-call keys: a random key per call that seals its secret fields, destroyed when the call
//! ends so that what stays in Temporal history can no longer be read (crypto-shredding).
import { randomBytes } from 'node:crypto';
import { Binary, type Db } from 'mongodb';
import { collections } from '../lib/mongo.js';

/** A key outlives its call only if the call never ended normally; the sweeper removes it then. */
export const CALL_KEY_TTL_MS = 60 * 60 * 1000;

function toBuffer(key: unknown): Buffer {
  if (key instanceof Binary) return Buffer.from(key.buffer);
  if (Buffer.isBuffer(key)) return key;
  throw new Error('call key has an unexpected type');
}

export function createCallKeys(db: Db) {
  const { callKeys } = collections(db);
  return {
    /** The call's key, created on first use; concurrent issuers for one call get the same key. */
    async issue(requestId: string): Promise<Buffer> {
      const doc = await callKeys.findOneAndUpdate(
        { _id: requestId },
        { $setOnInsert: { key: new Binary(randomBytes(32)) as never, expiresAt: new Date(Date.now() + CALL_KEY_TTL_MS) } },
        { upsert: true, returnDocument: 'after' },
      );
      return toBuffer(doc!.key);
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
