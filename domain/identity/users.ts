//! People: a user is found by their address; changes to them are recorded in each account they
//! are a member of (memberships are domain/membership/memberships.ts). Ids of what a sign-up writes are
//! derived from its token, so a sign-up whose process died half-way is finished, not doubled, when
//! its link is used again.
import type { Db } from 'mongodb';
import { collections, insertIfAbsent, isDuplicateKey } from '../../lib/mongo.js';
import type { UserDoc } from './documents.js';
import { auditDraft, createAuditLog, type AuditContext, type AuditAction, type AuditDraft } from '../audit/index.js';

/** The user as the session and the member list show them. */
export const userView = (u: Pick<UserDoc, '_id' | 'email' | 'name'>) => ({ id: u._id, email: u.email, name: u.name });

export function createUsers(db: Db) {
  const { users, memberships } = collections(db);
  const auditLog = createAuditLog(db);

  /** Drafts of one change to a person, one per account they are a member of. */
  async function draftsForUser(
    userId: string,
    audit: AuditContext,
    action: AuditAction,
    changes: AuditDraft['changes'],
    target = { type: 'user', id: userId },
    now = new Date(),
  ) {
    const accountIds = (await memberships.find({ userId }, { projection: { accountId: 1 } }).toArray()).map((m) => m.accountId);
    return accountIds.map((accountId) => auditDraft(audit, accountId, action, target, changes, now));
  }

  return {
    byEmail: (email: string) => users.findOne({ email }),
    get: (userId: string) => users.findOne({ _id: userId }, { projection: { auditDrafts: 0 } }),

    /**
     * Inserts the user unless their id is there already (a repeat). Null when another user holds
     * the address: it has an account already.
     */
    async create(doc: UserDoc): Promise<UserDoc | null> {
      try {
        await insertIfAbsent(users, doc);
      } catch (err) {
        if (isDuplicateKey(err)) return null;
        throw err;
      }
      const stored = await users.findOne({ _id: doc._id });
      return stored && stored.email === doc.email ? stored : null;
    },

    /** Sets a new password hash, with a `user.password_changed` entry in each of the person's accounts. */
    async setPassword(userId: string, passwordHash: string, how: 'changed' | 'reset', audit: AuditContext, now = new Date()) {
      const drafts = await draftsForUser(
        userId,
        audit,
        'user.password_changed',
        { passwordChangedAt: [null, now], how: [null, how] },
        undefined,
        now,
      );
      await users.updateOne(
        { _id: userId },
        { $set: { passwordHash, passwordChangedAt: now }, ...(drafts.length ? { $push: { auditDrafts: { $each: drafts } } } : {}) },
      );
      await auditLog.flush('user', userId);
    },

    /** A stronger hash of the same password (parameters raised since it was made): no entry, nothing changed for the person. */
    rehashed: (userId: string, passwordHash: string) => users.updateOne({ _id: userId }, { $set: { passwordHash } }),

    signedIn: (userId: string, now = new Date()) => users.updateOne({ _id: userId }, { $set: { lastSignInAt: now } }),

    /** Records an entry about the person in each of their accounts (a lockout, a passkey added or removed). */
    async record(
      userId: string,
      action: AuditAction,
      changes: AuditDraft['changes'],
      audit: AuditContext,
      target?: { type: string; id: string },
    ) {
      const drafts = await draftsForUser(userId, audit, action, changes, target);
      if (!drafts.length) return;
      await users.updateOne({ _id: userId }, { $push: { auditDrafts: { $each: drafts } } });
      await auditLog.flush('user', userId);
    },
  };
}

export type Users = ReturnType<typeof createUsers>;
