//! Dashboard sessions, as the Lucia guide describes them: a random id handed to the browser in a
//! cookie, only its SHA-256 stored, and checking one is one read by that digest. A session ends
//! on sign-out, when its person ends it from another device, after SESSION_IDLE_HOURS without use,
//! SESSION_MAX_DAYS after its sign-in, or when the password changes; an ended session is refused
//! at once on every API instance, since nothing caches it.
import type { Db } from 'mongodb';
import { newId, randomToken, sha256Hex } from '../../lib/ids.js';
import { collections } from '../../lib/mongo.js';
import type { Role, SignInMethod } from '../membership/index.js';
import type { SessionDoc } from './documents.js';
import { auditDraft, createAuditLog, type AuditContext } from '../audit/index.js';

/** `lastSeenAt` is written at most this often: the idle timeout is counted in hours. */
const TOUCH_EVERY_MS = 60_000;

/** A sensitive change (a password, a passkey) needs a sign-in this recent (docs/API.md, "People"). */
export const REAUTHENTICATE_AFTER_MS = 10 * 60_000;

/** Longest user agent kept with a session. */
const USER_AGENT_MAX = 256;

export interface SessionTimeouts {
  idleMs: number;
  maxMs: number;
}

export interface NewSession {
  userId: string;
  accountId: string;
  role: Role;
  method: SignInMethod;
  /** Method `oidc`: the provider's id. */
  provider?: string;
  ip: string | null;
  userAgent: string | null;
}

/** Why a session is no longer valid at `now`, or null while it is. */
export function sessionEnded(
  doc: Pick<SessionDoc, 'endedAt' | 'expiresAt' | 'lastSeenAt'>,
  timeouts: SessionTimeouts,
  now: number,
): 'ended' | 'expired' | 'idle' | null {
  if (doc.endedAt) return 'ended';
  if (doc.expiresAt.getTime() <= now) return 'expired';
  if (doc.lastSeenAt.getTime() + timeouts.idleMs <= now) return 'idle';
  return null;
}

/** The session as its person sees it in their list. */
export const sessionView = (doc: SessionDoc, currentId?: string) => ({
  id: doc._id,
  createdAt: doc.createdAt,
  lastSeenAt: doc.lastSeenAt,
  expiresAt: doc.expiresAt,
  ip: doc.ip,
  userAgent: doc.userAgent,
  method: doc.method,
  current: doc._id === currentId,
});

export function createSessions(db: Db, timeouts: SessionTimeouts) {
  const { sessions } = collections(db);
  const auditLog = createAuditLog(db);

  /** Ends the sessions `filter` picks that are live, each with its `session.ended` entry (`reason` why). */
  async function endWhere(filter: Record<string, unknown>, reason: string, audit: AuditContext, now = new Date()): Promise<number> {
    let ended = 0;
    for (const doc of await sessions.find({ ...filter, endedAt: null }, { projection: { _id: 1, accountId: 1 } }).toArray()) {
      const { modifiedCount } = await sessions.updateOne(
        { _id: doc._id, endedAt: null },
        {
          $set: { endedAt: now },
          $push: {
            auditDrafts: auditDraft(
              audit,
              doc.accountId,
              'session.ended',
              { type: 'session', id: doc._id },
              { endedAt: [null, now], reason: [null, reason] },
              now,
            ),
          },
        },
      );
      if (modifiedCount) {
        ended++;
        await auditLog.flush('session', doc._id);
      }
    }
    return ended;
  }

  return {
    /** Starts a session with its `user.signed_in` entry; the secret goes in the cookie and is kept nowhere. */
    async create(fields: NewSession, audit: AuditContext, now = new Date()): Promise<{ secret: string; doc: SessionDoc }> {
      const secret = randomToken(32);
      const id = newId('ses');
      const doc: SessionDoc = {
        _id: id,
        digest: sha256Hex(secret),
        userId: fields.userId,
        accountId: fields.accountId,
        role: fields.role,
        method: fields.method,
        ...(fields.provider ? { provider: fields.provider } : {}),
        createdAt: now,
        authenticatedAt: now,
        lastSeenAt: now,
        expiresAt: new Date(now.getTime() + timeouts.maxMs),
        endedAt: null,
        ip: fields.ip,
        userAgent: fields.userAgent?.slice(0, USER_AGENT_MAX) || null,
        auditDrafts: [
          auditDraft(
            audit,
            fields.accountId,
            'user.signed_in',
            { type: 'session', id },
            { method: [null, fields.method], ...(fields.provider ? { provider: [null, fields.provider] } : {}) },
            now,
          ),
        ],
      };
      await sessions.insertOne(doc);
      await auditLog.flush('session', id);
      return { secret, doc };
    },

    /**
     * The live session of a cookie's secret, or null with why it is not: one read. Its
     * `lastSeenAt` moves on (at most once a minute, not awaited).
     */
    async validate(
      secret: string,
      now = Date.now(),
    ): Promise<{ doc: SessionDoc } | { doc: null; reason: 'unknown' | 'ended' | 'expired' | 'idle' }> {
      const doc = await sessions.findOne({ digest: sha256Hex(secret) }, { projection: { auditDrafts: 0 } });
      if (!doc) return { doc: null, reason: 'unknown' };
      const ended = sessionEnded(doc, timeouts, now);
      if (ended) return { doc: null, reason: ended };
      if (now - doc.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
        sessions.updateOne({ _id: doc._id, endedAt: null }, { $set: { lastSeenAt: new Date(now) } }).catch(() => {});
      }
      return { doc };
    },

    get: (id: string) => sessions.findOne({ _id: id }, { projection: { auditDrafts: 0 } }),

    /** The user's live sessions, newest first. */
    async listLive(userId: string, now = Date.now()): Promise<SessionDoc[]> {
      const docs = await sessions
        .find({ userId, endedAt: null, expiresAt: { $gt: new Date(now) } }, { projection: { auditDrafts: 0 } })
        .sort({ createdAt: -1 })
        .limit(200)
        .toArray();
      return docs.filter((d) => !sessionEnded(d, timeouts, now));
    },

    /** Ends one session of the user (null when it is not theirs or is over already). */
    endOne: (userId: string, sessionId: string, reason: string, audit: AuditContext) => endWhere({ _id: sessionId, userId }, reason, audit),
    /** Ends every session of the user but `exceptId`. */
    endAllBut: (userId: string, exceptId: string | null, reason: string, audit: AuditContext) =>
      endWhere({ userId, ...(exceptId ? { _id: { $ne: exceptId } } : {}) }, reason, audit),
    /** Ends the user's sessions acting on one account (a member removed from it). */
    endForMember: (userId: string, accountId: string, reason: string, audit: AuditContext) =>
      endWhere({ userId, accountId }, reason, audit),
    /** Ends the sessions acting on the account that were not signed in through `provider` (the account now requires it). */
    endOnAccountUnlessProvider: (accountId: string, provider: string, reason: string, audit: AuditContext) =>
      endWhere({ accountId, $or: [{ method: { $ne: 'oidc' } }, { provider: { $ne: provider } }] }, reason, audit),

    /** The person proved who they are again in this session: sensitive changes are open for REAUTHENTICATE_AFTER_MS. */
    reauthenticated: (sessionId: string, now = new Date()) =>
      sessions.updateOne({ _id: sessionId, endedAt: null }, { $set: { authenticatedAt: now } }),

    /** The session acts on another account of its person. */
    switchAccount: (sessionId: string, accountId: string, role: Role) =>
      sessions.updateOne({ _id: sessionId, endedAt: null }, { $set: { accountId, role } }),

    /** The member's role changed: their sessions on that account follow at once. */
    setRole: (userId: string, accountId: string, role: Role) =>
      sessions.updateMany({ userId, accountId, endedAt: null }, { $set: { role } }),

    /** Drops sessions long over (the sweeper): their entries are in the audit log already. */
    sweep: (olderThan: Date) => sessions.deleteMany({ expiresAt: { $lt: olderThan } }),
  };
}

export type Sessions = ReturnType<typeof createSessions>;
