//! The audit chain read: pages of entries, the whole of an account's, its verification, and the
//! retention's sweep; each read first appends what a process left behind (`flushLeftovers`).
import { newestFirst, type Collections } from '../../lib/mongo.js';
import { entryHash, hashedPart } from './entries.js';

/** The chain read: pages, the whole of an account's, its verification, and the retention's sweep; each read flushes what was left behind first. */
export function auditReads(c: Collections, flushLeftovers: (accountId?: string) => Promise<number>) {
  return {
    /**
     * Entries newest first: of one account in its chain's order (the last appended first, so a
     * page reversed verifies as it is), or of every account by time; `action` keeps to one action.
     * `before`: the last entry of the previous page.
     */
    async list(query: { accountId?: string; action?: string; limit: number; before?: { at: Date; id: string } }) {
      await flushLeftovers(query.accountId);
      const filter: Record<string, unknown> = {
        ...(query.accountId ? { accountId: query.accountId } : {}),
        ...(query.action ? { action: query.action } : {}),
      };
      if (query.accountId) {
        if (query.before) {
          const last = await c.auditLog.findOne({ _id: query.before.id, accountId: query.accountId }, { projection: { seq: 1 } });
          filter.seq = { $lt: last?.seq ?? 0 };
        }
        const rows = await c.auditLog
          .find(filter)
          .sort({ seq: -1 })
          .limit(query.limit + 1)
          .toArray();
        return { items: rows.slice(0, query.limit), more: rows.length > query.limit };
      }
      const { rows, more } = await newestFirst(c.auditLog, filter, { limit: query.limit, after: query.before }, { field: 'at' });
      return { items: rows, more };
    },

    /** Every entry of the account, oldest first (a CSV export). */
    all: async (accountId: string, action?: string) => {
      await flushLeftovers(accountId);
      return c.auditLog
        .find({ accountId, ...(action ? { action } : {}) })
        .sort({ seq: 1 })
        .toArray();
    },

    /**
     * Walks the account's chain oldest first: each entry's hash must be that of its content after
     * its predecessor's hash. The oldest entry kept (older ones pass their retention) anchors the
     * walk with its own `prevHash`. `firstBadEntry`: the first entry whose hash or link is wrong.
     */
    async verify(accountId: string): Promise<{ ok: boolean; entries: number; firstBadEntry?: string }> {
      await flushLeftovers(accountId);
      let prev: string | undefined;
      let entries = 0;
      let firstBadEntry: string | undefined;
      for await (const doc of c.auditLog.find({ accountId }).sort({ seq: 1 })) {
        entries++;
        const linked = prev === undefined || doc.prevHash === prev;
        if (!firstBadEntry && (!linked || entryHash(doc.prevHash, hashedPart(doc)) !== doc.hash)) firstBadEntry = doc._id;
        prev = doc.hash;
      }
      return firstBadEntry ? { ok: false, entries, firstBadEntry } : { ok: true, entries };
    },

    /** Drops entries older than the retention (AUDIT_RETENTION_DAYS). */
    sweep: async (olderThan: Date) => (await c.auditLog.deleteMany({ at: { $lt: olderThan } })).deletedCount,
  };
}
