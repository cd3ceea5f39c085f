//! Memberships: a person is a member of accounts, each with a role. Joining, a role change and a
//! removal each write their audit entry with the change (the membership's own drafts, or the
//! account's deletion draft for a removal) and fire `member.joined` / `member.removed`. People
//! (domain/identity/: a session's accounts) and teams (domain/teams/) both build on it; it imports
//! neither.
import type { Db } from 'mongodb';
import { collections, insertIfAbsent } from '../../lib/mongo.js';
import type { MembershipDoc, Role } from './documents.js';
import type { SignInPolicy } from '../account-documents.js';
import { auditDraft, createAuditLog, type AuditContext } from '../audit/index.js';
import { createEventRecorder, newEvent, type EventSink } from '../events/index.js';

export const membershipId = (accountId: string, userId: string) => `${accountId}:${userId}`;

/** What the member events and entries say of the person. */
export interface Person {
  _id: string;
  email: string;
  name: string | null;
}

/** An account of a person, as their session and sign-in see it. */
export interface AccountOfPerson {
  id: string;
  name: string | null;
  role: Role;
  signInPolicy: SignInPolicy | null;
}

const NO_DRAFTS = { projection: { auditDrafts: 0 } } as const;

export function createMemberships(db: Db, onEvent?: EventSink) {
  const { memberships, accounts } = collections(db);
  const auditLog = createAuditLog(db);
  const record = createEventRecorder(db, onEvent);
  const memberEvent = (kind: 'member.joined' | 'member.removed', accountId: string, person: Person, role: Role) =>
    record(newEvent(accountId, kind, { userId: person._id, email: person.email, name: person.name, role }));

  return {
    /** Adds the person to the account with `role` (a repeat changes nothing), with its `member.joined` entry and event. */
    async join(accountId: string, person: Person, role: Role, audit: AuditContext, now = new Date()): Promise<MembershipDoc> {
      const id = membershipId(accountId, person._id);
      const doc: MembershipDoc = {
        _id: id,
        accountId,
        userId: person._id,
        role,
        joinedAt: now,
        auditDrafts: [auditDraft(audit, accountId, 'member.joined', { type: 'user', id: person._id }, { role: [null, role] }, now)],
      };
      if (await insertIfAbsent(memberships, doc)) {
        await auditLog.flush('membership', id);
        await memberEvent('member.joined', accountId, person, role);
        return doc;
      }
      return (await memberships.findOne({ _id: id }, NO_DRAFTS))!;
    },

    get: (accountId: string, userId: string) => memberships.findOne({ _id: membershipId(accountId, userId) }, NO_DRAFTS),

    /** The account's members, first joined first. */
    list: (accountId: string) => memberships.find({ accountId }, NO_DRAFTS).sort({ joinedAt: 1, _id: 1 }).toArray(),

    /** The members of the account among `userIds` (which of a list of people are members still). */
    among: (accountId: string, userIds: string[]) =>
      memberships.find({ accountId, userId: { $in: userIds } }, { projection: { userId: 1 } }).toArray(),

    /** The accounts the person is a member of, with their names and sign-in policies, oldest membership first. */
    async accountsOf(userId: string): Promise<AccountOfPerson[]> {
      const list = await memberships.find({ userId }, NO_DRAFTS).sort({ joinedAt: 1 }).toArray();
      const found = await accounts
        .find({ _id: { $in: list.map((m) => m.accountId) } }, { projection: { name: 1, signInPolicy: 1 } })
        .toArray();
      const byId = new Map(found.map((a) => [a._id, a]));
      return list
        .filter((m) => byId.has(m.accountId))
        .map((m) => ({
          id: m.accountId,
          name: byId.get(m.accountId)!.name ?? null,
          role: m.role,
          signInPolicy: byId.get(m.accountId)!.signInPolicy ?? null,
        }));
    },

    /** The person's role on the account, or null when they are not a member (any more). */
    roleOf: async (accountId: string, userId: string): Promise<Role | null> =>
      (await memberships.findOne({ _id: membershipId(accountId, userId) }, { projection: { role: 1 } }))?.role ?? null,

    /** Whether the account has a member with this role (an account opened by the operator has no owner at first). */
    hasRole: async (accountId: string, role: Role) => (await memberships.countDocuments({ accountId, role }, { limit: 1 })) > 0,

    /** Members of the account with this role. */
    withRole: (accountId: string, role: Role) => memberships.find({ accountId, role }, NO_DRAFTS).toArray(),

    /**
     * Sets the member's role if it is still `from`, with its `member.role_changed` entry. False when
     * the membership is gone or its role moved meanwhile.
     */
    async setRole(accountId: string, userId: string, from: Role, to: Role, audit: AuditContext, now = new Date()): Promise<boolean> {
      const id = membershipId(accountId, userId);
      const { matchedCount } = await memberships.updateOne(
        { _id: id, role: from },
        {
          $set: { role: to },
          $push: {
            auditDrafts: auditDraft(audit, accountId, 'member.role_changed', { type: 'user', id: userId }, { role: [from, to] }, now),
          },
        },
      );
      if (matchedCount) await auditLog.flush('membership', id);
      return matchedCount === 1;
    },

    /** Ends the membership, with its `member.removed` entry and event. False when it was gone already. */
    async remove(accountId: string, person: Person, role: Role, audit: AuditContext, now = new Date()): Promise<boolean> {
      const id = membershipId(accountId, person._id);
      const draft = auditDraft(
        audit,
        accountId,
        'member.removed',
        { type: 'membership', id },
        { userId: [person._id, null], email: [person.email, null], role: [role, null] },
        now,
      );
      const removed = await auditLog.deleting(draft, async () => (await memberships.deleteOne({ _id: id })).deletedCount === 1);
      if (removed) await memberEvent('member.removed', accountId, person, role);
      return removed;
    },
  };
}

export type Memberships = ReturnType<typeof createMemberships>;
