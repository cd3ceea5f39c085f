//! Expiry without TTL indexes (the local database has none): idempotency records, call keys,
//! claim-check blobs, outboxes (events, expiry entries) left by a crash, holds whose call can no longer end, events past
//! the event log's 30 days, asynchronous calls' answers past their 24 hours, audit drafts a crash
//! left on a changed document, audit entries past AUDIT_RETENTION_DAYS, and the render cache's
//! entries and images past their 30 days; people's sessions, mailed tokens, challenges and sign-in
//! windows past their end (domain/identity/sweep.ts); MCP sessions and their calls' records;
//! monitors' runs and their diff images past their 90 days.
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import { sweepBlobs } from '../../lib/claim-check-codec.js';
import { DatabaseBlobStore, type BlobStore } from '../../lib/blob-store.js';
import { createEventLog } from '../../domain/events/index.js';
import { createAsyncCalls, createCallCancellations } from '../../domain/calls/index.js';
import { createLedger } from '../../domain/ledger/index.js';
import { createAuditLog } from '../../domain/audit/index.js';
import { createRenderCache } from '../../domain/render-cache.js';
import { sweepIdentity, type IdentitySweep } from '../../domain/identity/sweep.js';
import { createRateBuckets } from '../../domain/rate-buckets.js';
import { createMcpSessions } from '../../domain/mcp-sessions.js';
import { sweepOAuthStore } from '../../domain/oauth/index.js';
import { createMonitorStore, MONITOR_DIFFS_AREA, RUN_RETENTION_MS } from '../../domain/monitors/index.js';

export interface SweepOptions {
  /** Claim-check blobs and big outputs live this long: an idempotent replay within 24 h still reads its answer. */
  blobRetentionMs: number;
  /** A hold older than this belongs to a call that was terminated; it is refunded. */
  orphanHoldMs: number;
  /** Audit log entries are kept this long (AUDIT_RETENTION_DAYS). */
  auditRetentionMs: number;
}

export const DEFAULT_SWEEP: SweepOptions = {
  blobRetentionMs: 25 * 60 * 60 * 1000,
  orphanHoldMs: 2 * 60 * 60 * 1000,
  auditRetentionMs: 400 * 24 * 60 * 60 * 1000,
};

export interface SweepReport {
  idempotency: number;
  callKeys: number;
  blobs: number;
  /** Big outputs (lib/output-blobs.ts) past the same retention. */
  outputBlobs: number;
  outboxes: number;
  orphanHolds: number;
  events: number;
  /** Asynchronous calls whose answer was dropped, and records deleted. */
  calls: { expired: number; deleted: number };
  /** Audit drafts a crash left on a changed document, appended; entries past their retention, deleted. */
  audit?: { drafts: number; expired: number };
  /** Render cache entries and images past their 30 days (domain/render-cache.ts). */
  renderCache: { entries: number; images: number };
  /** Sessions, tokens, WebAuthn challenges and sign-in windows past their end. */
  people: IdentitySweep;
  /** Request rates' buckets that have refilled (domain/rate-buckets.ts). */
  rateBuckets: number;
  /** MCP sessions unused past their end, and their calls' records past theirs. */
  mcpSessions: number;
  /** Marks of calls their clients cancelled, past any call they could stop (domain/calls/cancellations.ts). */
  callCancellations: number;
  /** The authorization server's codes, tokens, interactions and grants past their expiry. */
  oauth: number;
  /** Monitors' runs, and their diff images, past their 90 days. */
  monitorRuns: { runs: number; diffImages: number };
}

/** `outputBlobs`: the store big outputs wait in (BLOB_STORE_URL); the database when absent. */
export function createSweeper(db: Db, options: SweepOptions = DEFAULT_SWEEP, outputBlobs: BlobStore = new DatabaseBlobStore(db)) {
  const c = collections(db);
  const ledger = createLedger(db);
  const eventLog = createEventLog(db);
  const asyncCalls = createAsyncCalls(db);
  const auditLog = createAuditLog(db);
  const renderCache = createRenderCache({ db, blobs: outputBlobs });
  const rateBuckets = createRateBuckets(db);
  const mcpSessions = createMcpSessions(db);
  const callCancellations = createCallCancellations(db);

  async function refundOrphanHolds(now: number): Promise<number> {
    let refunded = 0;
    for await (const account of c.accounts.find({ holds: { $ne: {} } }, { projection: { holds: 1 } })) {
      for (const [requestId, hold] of Object.entries(account.holds ?? {})) {
        if (now - new Date(hold.at).getTime() < options.orphanHoldMs) continue;
        await ledger.refund({
          accountId: account._id,
          requestId,
          tool: hold.tool,
          cost: hold.cost,
          ...(hold.keyId ? { keyId: hold.keyId } : {}),
        });
        refunded++;
      }
    }
    return refunded;
  }

  async function flushOutboxes(): Promise<number> {
    let flushed = 0;
    for await (const account of c.accounts.find(
      { $or: [{ 'outbox.0': { $exists: true } }, { 'entries.0': { $exists: true } }] },
      { projection: { _id: 1 } },
    )) {
      flushed += await ledger.flushOutbox(account._id);
    }
    return flushed;
  }

  return {
    /** `now`: the sweeper workflow's time, so retention can be tested by skipping time. */
    async sweep(now = Date.now()): Promise<SweepReport> {
      const expired = { expiresAt: { $lt: new Date(now) } };
      return {
        idempotency: (await c.idempotency.deleteMany(expired)).deletedCount,
        callKeys: (await c.callKeys.deleteMany(expired)).deletedCount,
        blobs: await sweepBlobs(db, new Date(now - options.blobRetentionMs)),
        outputBlobs: await outputBlobs.sweep(new Date(now - options.blobRetentionMs)),
        outboxes: await flushOutboxes(),
        orphanHolds: await refundOrphanHolds(now),
        events: await eventLog.sweep(now),
        calls: await asyncCalls.sweep(now),
        audit: { drafts: await auditLog.flushLeftovers(), expired: await auditLog.sweep(new Date(now - options.auditRetentionMs)) },
        renderCache: await renderCache.sweep(now),
        people: await sweepIdentity(db, now),
        rateBuckets: await rateBuckets.sweep(now),
        mcpSessions: await mcpSessions.sweep(now),
        callCancellations: await callCancellations.sweep(now),
        oauth: await sweepOAuthStore(db, now),
        monitorRuns: {
          runs: await createMonitorStore(db).sweepRuns(now),
          diffImages: await outputBlobs.area(MONITOR_DIFFS_AREA).sweep(new Date(now - RUN_RETENTION_MS)),
        },
      };
    },
  };
}
