//! MCP sessions and the tool calls running in them. A session is what the MCP client's
//! `notifications/cancelled` is scoped to: JSON-RPC ids repeat across connections, so a request id
//! names a call only within its session. A session is a record in the database (under its id's
//! digest), not a process's memory, so any API replica answers any of its messages, and it is
//! bound to the credential that opened it: it is never a credential itself (every message still authenticates), and presented
//! with another credential it is unknown. Expiry without TTL indexes: the sweeper removes what
//! is past `expiresAt`.
import type { Collection, Db } from 'mongodb';
import { collections, insertIfAbsent } from '../lib/mongo.js';
import { randomBase62, sha256Hex } from '../lib/ids.js';

declare module '../lib/mongo.js' {
  /** Each collection of this file's documents (lib/mongo.ts names them). */
  interface Collections {
    mcpSessions: Collection<McpSessionDoc>;
    mcpCalls: Collection<McpCallDoc>;
  }
}

export interface McpSessionDoc {
  /** SHA-256 (hex) of the `Mcp-Session-Id` (`mcs_` and 32 random base62 characters): the id itself is never stored. */
  _id: string;
  accountId: string;
  /** The credential that opened it (Principal.credentialId): the only one it is known to. */
  credentialId: string;
  createdAt: Date;
  /** Moved on while the session is used (SESSION_IDLE_MS); past it the session is unknown. */
  expiresAt: Date;
}

/** A tool call of a session while it runs: which workflow its JSON-RPC request started. */
export interface McpCallDoc {
  /** `<session's digest> <JSON of the JSON-RPC id>`: the id as sent, so `1` and `"1"` stay apart. */
  _id: string;
  /** The session's digest (McpSessionDoc._id). */
  sessionId: string;
  /** Absent on a cancellation's mark left before its call recorded itself. */
  workflowId?: string;
  /** The client cancelled the request: the mark may come before the call's record, which then finds it. */
  cancelled?: true;
  expiresAt: Date;
}

/** A session unused this long ends: its client is answered 404 and starts another (initialize). */
export const SESSION_IDLE_MS = 24 * 60 * 60 * 1000;
/** How long a cancellation's mark waits for a call that had not recorded itself yet (its start under way). */
const CANCEL_MARK_MS = 10 * 60_000;
/** A session's expiry is moved on at most this often: one write an hour, not one per message. */
const SESSION_REFRESH_MS = 60 * 60 * 1000;

/**
 * A session this process found to be a credential's is taken as still being it for this long
 * without asking the database again: a DELETE through another replica holds there within it.
 */
const KNOWN_FOR_MS = 1_000;
/** Sessions remembered by a process; past it the map starts again (a read more, never a wrong answer). */
const REMEMBERED = 10_000;

export type JsonRpcId = string | number;

/** What the database keeps of a session id: its digest, so that a copy of the data opens no session. */
const digestOf = (sessionId: string) => sha256Hex(sessionId);

const callId = (sessionId: string, requestId: JsonRpcId) => `${digestOf(sessionId)} ${JSON.stringify(requestId)}`;

export function createMcpSessions(db: Db) {
  const { mcpSessions, mcpCalls } = collections(db);
  /** Sessions known to be a credential's, and when that was last read: each message of a session would read it otherwise. */
  const known = new Map<string, { credentialId: string; at: number }>();
  const remember = (sessionId: string, credentialId: string, at: number) => {
    if (known.size > REMEMBERED) known.clear();
    known.set(sessionId, { credentialId, at });
  };

  return {
    /** A new session of `credentialId`'s, and its id. */
    async open(owner: { accountId: string; credentialId: string }, now = Date.now()): Promise<string> {
      for (;;) {
        const sessionId = `mcs_${randomBase62(32)}`;
        const doc = { _id: digestOf(sessionId), ...owner, createdAt: new Date(now), expiresAt: new Date(now + SESSION_IDLE_MS) };
        if (await insertIfAbsent(mcpSessions, doc)) {
          remember(sessionId, owner.credentialId, now);
          return sessionId;
        }
      }
    },

    /** Whether `sessionId` is a live session of `credentialId`'s (another's is as unknown as none); its use keeps it alive. */
    async isOwn(sessionId: string, credentialId: string, now = Date.now()): Promise<boolean> {
      const seen = known.get(sessionId);
      if (seen && seen.credentialId === credentialId && now - seen.at < KNOWN_FOR_MS) return true;
      const doc = await mcpSessions.findOne({ _id: digestOf(sessionId), credentialId, expiresAt: { $gt: new Date(now) } });
      if (!doc) {
        known.delete(sessionId);
        return false;
      }
      remember(sessionId, credentialId, now);
      if (doc.expiresAt.getTime() < now + SESSION_IDLE_MS - SESSION_REFRESH_MS)
        await mcpSessions.updateOne({ _id: doc._id }, { $set: { expiresAt: new Date(now + SESSION_IDLE_MS) } });
      return true;
    },

    /** Ends a session of `credentialId`'s, with what it recorded of its calls; false when it had none such. */
    async end(sessionId: string, credentialId: string, now = Date.now()): Promise<boolean> {
      known.delete(sessionId);
      const digest = digestOf(sessionId);
      const ended = await mcpSessions.deleteOne({ _id: digest, credentialId, expiresAt: { $gt: new Date(now) } });
      if (ended.deletedCount) await mcpCalls.deleteMany({ sessionId: digest });
      return ended.deletedCount === 1;
    },

    /**
     * Records that the session's request `requestId` runs the call `workflowId`, once it has
     * started, until `until` (epoch ms): true when the client cancelled the request first (its mark
     * is there), and the call is then the caller's to cancel. One insert per call, beside the
     * running workflow; the sweeper removes it. A request id the client used again names the newer call.
     */
    async running(sessionId: string, requestId: JsonRpcId, workflowId: string, until: number): Promise<boolean> {
      const _id = callId(sessionId, requestId);
      const record = { sessionId: digestOf(sessionId), workflowId, expiresAt: new Date(until) };
      if (await insertIfAbsent(mcpCalls, { _id, ...record })) return false;
      // A cancellation's mark (no call yet): the call takes it over, cancelled.
      const { matchedCount } = await mcpCalls.updateOne({ _id, workflowId: { $exists: false } }, { $set: record });
      if (matchedCount === 1) return true;
      await mcpCalls.replaceOne({ _id }, record);
      return false;
    },

    /**
     * Marks the request cancelled and returns its call's workflow id; null when the session runs no
     * such request yet. The mark is left even then (until CANCEL_MARK_MS): a call whose start was
     * under way finds it when it records itself (`running`).
     */
    async cancel(sessionId: string, requestId: JsonRpcId, now = Date.now()): Promise<string | null> {
      const _id = callId(sessionId, requestId);
      const mark = () => mcpCalls.findOneAndUpdate({ _id }, { $set: { cancelled: true } }, { returnDocument: 'after' });
      let marked = await mark();
      // No record: the mark is left for the call to find, unless its record came meanwhile.
      if (
        !marked &&
        !(await insertIfAbsent(mcpCalls, {
          _id,
          sessionId: digestOf(sessionId),
          cancelled: true,
          expiresAt: new Date(now + CANCEL_MARK_MS),
        }))
      )
        marked = await mark();
      return marked?.workflowId ?? null;
    },

    /** Whether the client cancelled the request that ran `workflowId` (asked only of a call that ended cancelled). */
    async wasCancelled(sessionId: string, requestId: JsonRpcId, workflowId: string): Promise<boolean> {
      return (await mcpCalls.countDocuments({ _id: callId(sessionId, requestId), workflowId, cancelled: true })) > 0;
    },

    /** Removes sessions and call records past their end. */
    async sweep(now = Date.now()): Promise<number> {
      const expired = { expiresAt: { $lt: new Date(now) } };
      return (await mcpSessions.deleteMany(expired)).deletedCount + (await mcpCalls.deleteMany(expired)).deletedCount;
    },
  };
}

export type McpSessions = ReturnType<typeof createMcpSessions>;
