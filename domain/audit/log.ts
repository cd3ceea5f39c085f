//! The audit log: who changed what on an account, per account a hash chain. An entry is first a
//! draft written in the same single-document update as the change it records (`auditDrafts` of the
//! changed key or webhook endpoint; of the account for a grant, which the account's update applies,
//! and a plan change; of a purchase, or of an account's billing for its auto-recharge), then appended to the chain; a draft left behind by a process that died in
//! between is appended by the next read of the log or by the sweeper, so a change is never without
//! its entry. A deletion cannot carry its draft in what it deletes: it writes the draft to the
//! account's `auditDeletions` first, and the draft is appended once the target is gone (see deleting).
//! Each entry is hashed after its predecessor (`entries.ts`); the chain is read by `reads.ts`.
import type { Collection, Db } from 'mongodb';
import { collections, isDuplicateKey } from '../../lib/mongo.js';
import type { AuditDraft, AuditEntryDoc } from '../account-documents.js';
import { GENESIS_HASH, entryHash, hashedPart } from './entries.js';
import { auditReads } from './reads.js';

/** Most appends retried on a race for the head of the chain. */
const APPEND_TRIES = 50;
/** Accounts whose chain head this process remembers; past that it starts afresh. */
const HEADS_REMEMBERED = 10_000;

/** A deletion's draft older than this whose target still exists belongs to a deletion that never happened. */
const DELETION_SETTLES_MS = 60_000;

/** Documents whose updates carry drafts, and the field that names their account. */
interface DraftHolder {
  docs: Collection<{ _id: string; auditDrafts?: AuditDraft[] }>;
  /** A person is in several accounts: their drafts name each one (`auditDrafts.accountId`). */
  accountField: 'accountId' | '_id' | 'auditDrafts.accountId';
}

/** The documents a change's update writes its drafts to, by what `flush` calls them: each one's collection. */
const HOLDERS = {
  /** A key, a webhook endpoint; the account itself (a grant, a plan, its owner, its sign-in policy). */
  key: 'credentials',
  endpoint: 'webhookEndpoints',
  account: 'accounts',
  linkSecret: 'linkSecrets',
  destination: 'destinations',
  /** A sign-in or a session's end, and a change to a person (one draft per account they are in). */
  session: 'sessions',
  user: 'users',
  /** A purchase, and an account's billing (its auto-recharge). */
  purchase: 'purchases',
  billing: 'billingAccounts',
  /** A member who joined or whose role changed, and an invitation made or revoked (by its digest). */
  membership: 'memberships',
  invitation: 'authTokens',
  /** An agent connected to an account or disconnected, and a monitor made or changed. */
  connection: 'oauthConnections',
  monitor: 'monitors',
} as const satisfies Record<string, keyof ReturnType<typeof collections>>;

/** What `flush` takes: the kind of document a change wrote its drafts to. */
export type DraftHolderKind = keyof typeof HOLDERS;

/** The field that names a holder's account, where it is not `accountId`. */
const ACCOUNT_FIELD: Partial<Record<DraftHolderKind, DraftHolder['accountField']>> = {
  account: '_id',
  billing: '_id',
  user: 'auditDrafts.accountId',
};

export function createAuditLog(db: Db) {
  const c = collections(db);
  const holders = Object.fromEntries(
    Object.entries(HOLDERS).map(([kind, name]) => {
      const docs = c[name] as unknown as DraftHolder['docs'];
      return [kind, { docs, accountField: ACCOUNT_FIELD[kind as DraftHolderKind] ?? 'accountId' }];
    }),
  ) as Record<DraftHolderKind, DraftHolder>;

  /** Where a deleted target lived: a deletion's draft is appended once its target is gone from there. */
  const deletable: Record<string, DraftHolder['docs']> = {
    webhook_endpoint: holders.endpoint.docs,
    destination: holders.destination.docs,
    membership: holders.membership.docs,
    monitor: holders.monitor.docs,
  };

  /**
   * A sequence number at or below each account's head, as last seen here. The database sorts
   * every entry of an account to find its newest (it does not walk the index backwards), so the
   * head is read among the entries from this number on; only the first append here reads them all.
   */
  const seqAtLeast = new Map<string, number>();

  async function headOf(accountId: string): Promise<AuditEntryDoc | null> {
    const newest = (filter: Record<string, unknown>) =>
      c.auditLog
        .find({ accountId, ...filter })
        .sort({ seq: -1 })
        .limit(1)
        .next();
    const known = seqAtLeast.get(accountId);
    // Nothing from there on: retention swept the chain since; read it whole.
    return (known !== undefined && (await newest({ seq: { $gte: known } }))) || newest({});
  }

  /** Appends a draft at the head of its account's chain; a draft appended already is left as it is. */
  async function append(draft: AuditDraft): Promise<void> {
    const part = hashedPart(draft);
    for (let i = 0; i < APPEND_TRIES; i++) {
      const head = await headOf(draft.accountId);
      const prevHash = head?.hash ?? GENESIS_HASH;
      const doc: AuditEntryDoc = {
        _id: draft.id,
        accountId: draft.accountId,
        seq: (head?.seq ?? 0) + 1,
        at: draft.at,
        actor: draft.actor,
        ip: draft.ip,
        userAgent: draft.userAgent,
        action: draft.action,
        target: draft.target,
        changes: draft.changes,
        prevHash,
        hash: entryHash(prevHash, part),
      };
      try {
        await c.auditLog.insertOne(doc);
        if (seqAtLeast.size >= HEADS_REMEMBERED) seqAtLeast.clear();
        seqAtLeast.set(draft.accountId, doc.seq);
        return;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        if (await c.auditLog.findOne({ _id: draft.id }, { projection: { _id: 1 } })) return; // appended by another flush
        // Another entry took this place in the chain: read the head again.
      }
    }
    throw new Error(`audit entry ${draft.id}: the chain of ${draft.accountId} kept moving`);
  }

  /** Appends the drafts a changed document carries, then takes them off it. */
  async function flushHolder({ docs }: DraftHolder, id: string): Promise<number> {
    const doc = await docs.findOne({ _id: id }, { projection: { auditDrafts: 1 } });
    const drafts = doc?.auditDrafts ?? [];
    for (const draft of drafts) await append(draft);
    if (drafts.length) await docs.updateOne({ _id: id }, { $pull: { auditDrafts: { id: { $in: drafts.map((d) => d.id) } } } } as never);
    return drafts.length;
  }

  /** Appends every draft left behind (of one account, or all): what a process that died between a change and its entry left. */
  async function flushLeftovers(accountId?: string, now = Date.now()): Promise<number> {
    let flushed = 0;
    for (const h of Object.values(holders)) {
      const filter = { ...(accountId ? { [h.accountField]: accountId } : {}), 'auditDrafts.0': { $exists: true } };
      for await (const doc of h.docs.find(filter, { projection: { _id: 1 } })) flushed += await flushHolder(h, doc._id);
    }
    const deletions = { ...(accountId ? { _id: accountId } : {}), 'auditDeletions.0': { $exists: true } };
    for await (const account of c.accounts.find(deletions, { projection: { auditDeletions: 1 } })) {
      for (const draft of account.auditDeletions ?? []) {
        if (now - new Date(draft.at).getTime() < DELETION_SETTLES_MS) continue; // its request may still be deleting
        const home = deletable[draft.target.type];
        const gone = !home || !(await home.findOne({ _id: draft.target.id }, { projection: { _id: 1 } }));
        if (gone) {
          await append(draft);
          flushed++;
        }
        await c.accounts.updateOne({ _id: account._id }, { $pull: { auditDeletions: { id: draft.id } } });
      }
    }
    return flushed;
  }

  /**
   * Records a deletion: its draft is written to the account before `remove` runs and appended once
   * it removed something, so a process that dies in between leaves a draft that the sweep settles
   * by whether the target is gone. Answers what `remove` did.
   */
  async function deleting(draft: AuditDraft, remove: () => Promise<boolean>): Promise<boolean> {
    await c.accounts.updateOne({ _id: draft.accountId }, { $push: { auditDeletions: draft } });
    const removed = await remove();
    if (removed) await append(draft);
    await c.accounts.updateOne({ _id: draft.accountId }, { $pull: { auditDeletions: { id: draft.id } } });
    return removed;
  }

  return {
    append,
    deleting,
    /** After a change whose update wrote drafts to `kind`'s document `id`: its drafts into the chain. */
    flush: (kind: DraftHolderKind, id: string) => flushHolder(holders[kind], id),
    flushLeftovers,
    ...auditReads(c, flushLeftovers),
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
