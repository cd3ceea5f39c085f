//! Failed sign-ins counted in the database, so the limits hold across API replicas: 10 failures
//! for one address within 15 minutes lock it for 15 minutes, 100 from one client address lock
//! that client. An address is counted whether or not it has an account, so a lock tells nothing.
//! A window is one document (`address:<sha256>` or `client:<ip>`): a failure increments it in one
//! guarded update, and the update that reaches the limit is the one that sets the lock, so only
//! one request reports it (mail, audit) however many fail at once.
import type { Db } from 'mongodb';
import { sha256Hex } from '../../lib/ids.js';
import { collections, isDuplicateKey, upsertReturningAfter } from '../../lib/mongo.js';

export const THROTTLE_WINDOW_MS = 15 * 60_000;
export const LOCK_MS = 15 * 60_000;
export const ADDRESS_FAILURE_LIMIT = 10;
export const CLIENT_FAILURE_LIMIT = 100;

export interface ThrottleKeys {
  address: string;
  client: string;
}

/** An IPv4 client as a dual-stack socket names it (`::ffff:203.0.113.7`) is the IPv4 address. */
const clientAddress = (ip: string | null | undefined) => (ip ? ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1') : 'unknown');

export const throttleKeys = (email: string, ip: string | null | undefined): ThrottleKeys => ({
  address: `address:${sha256Hex(email)}`,
  client: `client:${clientAddress(ip)}`,
});

export function createSigninThrottle(db: Db) {
  const { signinThrottle } = collections(db);

  /** Counts one failure of `key`; true when this failure locked it. */
  async function fail(key: string, limit: number, now: Date): Promise<boolean> {
    const windowFrom = new Date(now.getTime() - THROTTLE_WINDOW_MS);
    for (let tries = 0; ; tries++) {
      let doc = await signinThrottle.findOneAndUpdate(
        { _id: key, windowStart: { $gt: windowFrom } },
        { $inc: { failures: 1 } },
        { returnDocument: 'after' },
      );
      if (!doc) {
        try {
          // No window, or an old one: this failure opens a new window.
          doc = await upsertReturningAfter(
            signinThrottle,
            { _id: key, windowStart: { $lte: windowFrom } },
            { $set: { windowStart: now, failures: 1 }, $setOnInsert: { lockedUntil: null } },
          );
        } catch (err) {
          if (!isDuplicateKey(err) || tries > 5) throw err;
          continue; // another failure opened the window first: count into it
        }
      }
      if (!doc || doc.failures < limit) return false;
      const { modifiedCount } = await signinThrottle.updateOne(
        { _id: key, failures: { $gte: limit }, $or: [{ lockedUntil: null }, { lockedUntil: { $lte: now } }] },
        { $set: { lockedUntil: new Date(now.getTime() + LOCK_MS) } },
      );
      return modifiedCount === 1;
    }
  }

  return {
    /** Seconds until the later of the locks on these keys ends, or 0 when neither is locked. */
    async lockedFor(keys: ThrottleKeys, now = new Date()): Promise<number> {
      const docs = await signinThrottle.find({ _id: { $in: [keys.address, keys.client] }, lockedUntil: { $gt: now } }).toArray();
      const until = Math.max(0, ...docs.map((d) => d.lockedUntil!.getTime()));
      return until > now.getTime() ? Math.ceil((until - now.getTime()) / 1000) : 0;
    },

    /** Counts a failed sign-in; says which of the two it locked just now. */
    async failed(keys: ThrottleKeys, now = new Date()) {
      const [address, client] = await Promise.all([
        fail(keys.address, ADDRESS_FAILURE_LIMIT, now),
        fail(keys.client, CLIENT_FAILURE_LIMIT, now),
      ]);
      return { addressLocked: address, clientLocked: client };
    },

    /** The address's count and lock are dropped (its owner proved the mailbox with a reset). */
    clear: (key: string) => signinThrottle.deleteOne({ _id: key }),

    /** A sign-in succeeded: the address's count starts again (the client's stays). */
    succeeded: (keys: ThrottleKeys) =>
      signinThrottle.deleteOne({ _id: keys.address, $or: [{ lockedUntil: null }, { lockedUntil: { $lte: new Date() } }] }),
  };
}

export type SigninThrottle = ReturnType<typeof createSigninThrottle>;
