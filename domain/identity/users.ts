//! People and their memberships: a user is found by their address, and is a member of accounts,
//! each with a role. Ids of what a sign-up writes are derived from its token, so a sign-up whose
//! process died half-way is finished, not doubled, when its link is used again.
import type { Db } from 'mongodb';
import { collections, insertIfAbsent, isDuplicateKey } from '../../lib/mongo.js';
import type { MembershipDoc, Role, UserDoc } from '../../lib/mongo-documents.js';
import { auditDraft, createAuditLog, type AuditContext, type AuditAction, type AuditDraft } from '../audit-log.js';

export const ROLES = ['owner', 'admin', 'developer', 'billing', 'viewer'] as const satisfies readonly Role[];

export const membershipId = (accountId: string, userId: string) => `${accountId}:${userId}`;

/** The user as the session and the member list show them. */
export const userView = (u: Pick<UserDoc, '_id' | 'email' | 'name'>) => ({ id: u._id, email: u.email, name: u.name });

export function createUsers(db: Db) {
  const { users, memberships, accounts } = collections(db);
  const auditLog = createAuditLog(db);

  /** Drafts of one change to a person, one per account they are a member of. */
  async function draftsForUser(userId: string, audit: AuditContext, action: AuditAction, changes: AuditDraft['changes'], target = { type: 'user', id: userId }, now = new Date()) {
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

    /** Adds the user to the account with `role` (a repeat changes nothing), with its `member.joined` entry. */
    async join(accountId: string, userId: string, role: Role, audit: AuditContext, now = new Date()): Promise<MembershipDoc> {
      const doc: MembershipDoc = { _id: membershipId(accountId, userId), accountId, userId, role, joinedAt: now };
      if (await insertIfAbsent(memberships, doc)) {
        await accounts.updateOne({ _id: accountId }, { $push: { auditDrafts: auditDraft(audit, accountId, 'member.joined', { type: 'user', id: userId }, { role: [null, role] }, now) } });
        await auditLog.flushAccount(accountId);
        return doc;
      }
      return (await memberships.findOne({ _id: doc._id }))!;
    },

    membership: (accountId: string, userId: string) => memberships.findOne({ _id: membershipId(accountId, userId) }),

    /** The accounts the user is a member of, with their names, oldest membership first. */
    async accountsOf(userId: string): Promise<{ id: string; name: string | null; role: Role }[]> {
      const list = await memberships.find({ userId }).sort({ joinedAt: 1 }).toArray();
      const names = new Map((await accounts.find({ _id: { $in: list.map((m) => m.accountId) } }, { projection: { name: 1 } }).toArray()).map((a) => [a._id, a.name]));
      return list.filter((m) => names.has(m.accountId)).map((m) => ({ id: m.accountId, name: names.get(m.accountId) ?? null, role: m.role }));
    },

    /** Whether the account has a member with this role (an account opened by the operator has none at first). */
    hasRole: async (accountId: string, role: Role) => (await memberships.countDocuments({ accountId, role }, { limit: 1 })) > 0,

    /** Sets a new password hash, with a `user.password_changed` entry in each of the person's accounts. */
    async setPassword(userId: string, passwordHash: string, how: 'changed' | 'reset', audit: AuditContext, now = new Date()) {
      const drafts = await draftsForUser(userId, audit, 'user.password_changed', { passwordChangedAt: [null, now], how: [null, how] }, undefined, now);
      await users.updateOne({ _id: userId }, { $set: { passwordHash, passwordChangedAt: now }, ...(drafts.length ? { $push: { auditDrafts: { $each: drafts } } } : {}) });
      await auditLog.flushUser(userId);
    },

    /** A stronger hash of the same password (parameters raised since it was made): no entry, nothing changed for the person. */
    rehashed: (userId: string, passwordHash: string) => users.updateOne({ _id: userId }, { $set: { passwordHash } }),

    signedIn: (userId: string, now = new Date()) => users.updateOne({ _id: userId }, { $set: { lastSignInAt: now } }),

    /** Records an entry about the person in each of their accounts (a lockout, a passkey added or removed). */
    async record(userId: string, action: AuditAction, changes: AuditDraft['changes'], audit: AuditContext, target?: { type: string; id: string }) {
      const drafts = await draftsForUser(userId, audit, action, changes, target);
      if (!drafts.length) return;
      await users.updateOne({ _id: userId }, { $push: { auditDrafts: { $each: drafts } } });
      await auditLog.flushUser(userId);
    },
  };
}

export type Users = ReturnType<typeof createUsers>;
