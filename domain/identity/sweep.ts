//! What people leave behind that no longer does anything: sessions past their end (their entries
//! are in the audit log already), mailed tokens past their expiry, WebAuthn challenges nobody
//! answered, and sign-in windows that have closed without a lock.
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import { THROTTLE_WINDOW_MS } from './throttle.js';

export interface IdentitySweep {
  sessions: number;
  tokens: number;
  challenges: number;
  throttle: number;
}

export async function sweepIdentity(db: Db, now: number): Promise<IdentitySweep> {
  const c = collections(db);
  const past = new Date(now);
  return {
    // An ended session is kept to its natural end: its id is refused either way.
    sessions: (await c.sessions.deleteMany({ expiresAt: { $lt: past }, 'auditDrafts.0': { $exists: false } })).deletedCount,
    tokens: (await c.authTokens.deleteMany({ expiresAt: { $lt: past } })).deletedCount,
    challenges: (await c.webauthnChallenges.deleteMany({ expiresAt: { $lt: past } })).deletedCount,
    throttle: (
      await c.signinThrottle.deleteMany({
        windowStart: { $lt: new Date(now - THROTTLE_WINDOW_MS) },
        $or: [{ lockedUntil: null }, { lockedUntil: { $lt: past } }],
      })
    ).deletedCount,
  };
}
