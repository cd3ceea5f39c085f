//! Grants of credits as records: welcome, purchase, monthly allowance, adjustment. Each is a
//! `grants` document kept for good; what is left of it lives in its account's document (the
//! ledger's lots), so spending stays a single-document update. A grant with an idempotency key
//! (the operator's payment id, an allowance period) is granted once however often it is asked for.
import { type Static, Type } from '@sinclair/typebox';
import type { Db } from 'mongodb';
import { collections, insertIfAbsent, olderThan, type PageAfter } from '../../lib/mongo.js';
import type { GrantDoc, GrantKind } from '../account-documents.js';
import { derivedId, newId } from '../../lib/ids.js';
import { Credits, Id, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../lib/schema-types.js';
import type { EventSink } from '../events/index.js';
import { createLedger, GRANT_REASONS } from './ledger.js';
import { SERVICE_ACTOR, auditDraft, createAuditLog, type AuditContext } from '../audit/index.js';

export interface GrantRequest {
  accountId: string;
  amount: number;
  reason: GrantKind;
  /** When what is left of it lapses; null or absent: never. */
  expiresAt?: Date | null;
  idempotencyKey?: string | null;
  periodStart?: Date;
  /** Who grants, as the audit log records it (`credits.granted`); the service itself when left out. */
  audit?: AuditContext;
}

export interface GrantOutcome {
  grant: GrantDoc;
  /** The available balance the grant produced (for a repeat: what the first answered). */
  balance: number;
  /** True when the key had been used: nothing new was granted. */
  replayed: boolean;
}

/** A grant as the owner and the operator see it: its type, and the `Grant` schema of the OpenAPI document. */
export const Grant = Type.Object(
  {
    id: Id('grt', 'Grant id.'),
    amount: Type.Integer({ minimum: 1, description: 'Credits granted.' }),
    reason: StringEnum(['welcome', ...GRANT_REASONS, 'recharge'], {
      description:
        '`welcome` is the opening grant; `purchase` a credit pack bought (or granted by the operator); `recharge` an automatic recharge.',
    }),
    remaining: Credits('Credits left of it that can be spent now (0 once it expired).'),
    held: Credits('Credits of it held by calls still running.'),
    expired: Credits('Credits of it that lapsed.'),
    voided: Credits('Credits of it taken back because its payment was refunded or disputed (a dispute won gives its part back).'),
    expiresAt: NullableTimestamp('When what is left of it lapses; null: never. Calls spend the grant that expires first.'),
    expiredAt: NullableTimestamp('When it expired; null while it has not.'),
    idempotencyKey: Nullable(Type.String({ description: 'The payment id (or allowance period) it was granted under.' })),
    createdAt: Timestamp('When it was granted.'),
  },
  { description: 'A grant of credits and what is left of it.' },
);
export type GrantView = Static<typeof Grant>;

/** A grant's record as the operator's answer shows it. */
export function grantView(g: GrantDoc) {
  return {
    id: g._id,
    amount: g.amount,
    reason: g.reason,
    expiresAt: g.expiresAt,
    idempotencyKey: g.idempotencyKey,
    createdAt: g.createdAt,
  };
}

/** The grant id a key stands for: derived, so a repeat of the key finds the first grant. */
export const grantIdForKey = (accountId: string, key: string) => derivedId('grt', `${accountId}:key:${key}`);

/** How many due grants one expiry pass handles before it reports that more are left. */
const EXPIRY_BATCH = 500;

export function createGrants(db: Db, onEvent?: EventSink) {
  const { grants, accounts, ledger: usage } = collections(db);
  const ledger = createLedger(db, onEvent);
  const auditLog = createAuditLog(db);

  /** Lets what is left of a due grant lapse (a no-op when it did already), then marks its record. */
  async function expire(record: GrantDoc, now: number): Promise<number> {
    const lapsed = await ledger.expireLot(record.accountId, record._id, now);
    await grants.updateOne({ _id: record._id, expiredAt: null }, { $set: { expiredAt: record.expiresAt } });
    return lapsed;
  }

  return {
    /**
     * Records the grant, then puts it in the account. A repeat of the key answers the first grant
     * (and completes it, if the first attempt stopped between the two writes). The record is
     * written first: the account's update is keyed by its id, so it happens once.
     */
    async grant(request: GrantRequest, now = Date.now()): Promise<GrantOutcome> {
      const id = request.idempotencyKey ? grantIdForKey(request.accountId, request.idempotencyKey) : newId('grt');
      const fresh: GrantDoc = {
        _id: id,
        accountId: request.accountId,
        amount: request.amount,
        reason: request.reason,
        expiresAt: request.expiresAt ?? null,
        idempotencyKey: request.idempotencyKey ?? null,
        createdAt: new Date(now),
        appliedAt: null,
        balanceAfter: null,
        expiredAt: null,
        ...(request.periodStart ? { periodStart: request.periodStart } : {}),
      };
      const inserted = await insertIfAbsent(grants, fresh);
      const record = inserted ? fresh : (await grants.findOne({ _id: id }))!;
      if (!inserted && record.appliedAt && record.balanceAfter !== null)
        return { grant: record, balance: record.balanceAfter, replayed: true };
      // Its audit entry is written by the update that puts it in the account, so it is recorded once and never lost.
      const audit = auditDraft(
        request.audit ?? SERVICE_ACTOR,
        record.accountId,
        'credits.granted',
        { type: 'grant', id },
        {
          amount: [null, record.amount],
          reason: [null, record.reason],
          expiresAt: [null, record.expiresAt],
        },
        new Date(now),
      );
      const applied = await ledger.applyGrant(
        { accountId: record.accountId, grantId: id, amount: record.amount, reason: record.reason, expiresAt: record.expiresAt, audit },
        now,
      );
      if (applied.applied) await auditLog.flush('account', record.accountId);
      await grants.updateOne({ _id: id, appliedAt: null }, { $set: { appliedAt: new Date(now), balanceAfter: applied.balance } });
      const done = (await grants.findOne({ _id: id }))!;
      // A grant whose expiry has passed already (an allowance granted after its period ended) lapses at once.
      if (done.expiresAt && done.expiresAt.getTime() <= now) await expire(done, now);
      return { grant: done, balance: done.balanceAfter ?? applied.balance, replayed: !inserted };
    },

    /** The first grant made with this key, if any. */
    byKey: (accountId: string, key: string) => grants.findOne({ _id: grantIdForKey(accountId, key) }),

    /** Every grant past its expiry lapses (what is left of it leaves the balance). Returns how many, and whether more are due. */
    async expireDue(now: number, limit = EXPIRY_BATCH): Promise<{ expired: number; more: boolean }> {
      const due = await grants
        .find({ expiredAt: null, expiresAt: { $lte: new Date(now) } })
        .limit(limit + 1)
        .toArray();
      for (const record of due.slice(0, limit)) await expire(record, now);
      return { expired: Math.min(due.length, limit), more: due.length > limit };
    },

    /** The account's grants, newest first, with what is left of each; `before` pages by creation. */
    async list(accountId: string, options: { limit: number; before?: PageAfter }): Promise<{ items: GrantView[]; more: boolean }> {
      const filter = { accountId, ...olderThan(options.before) };
      const account = await accounts.findOne({ _id: accountId }, { projection: { lots: 1, holds: 1 } });
      const lots = account?.lots ?? {};
      // A record whose credits never reached the account (its request failed there) was never granted.
      const rows = (
        await grants
          .find(filter)
          .sort({ createdAt: -1, _id: -1 })
          .limit(options.limit + 1)
          .toArray()
      ).filter((g) => lots[g._id]);
      const page = rows.slice(0, options.limit);
      const ids = page.map((g) => g._id);
      const lapsed = new Map<string, number>();
      for (const e of await usage.find({ accountId, outcome: 'expired', grantId: { $in: ids } }).toArray()) {
        lapsed.set(e.grantId!, (lapsed.get(e.grantId!) ?? 0) + e.credits);
      }
      const held = new Map<string, number>();
      for (const hold of Object.values(account?.holds ?? {})) {
        for (const [grantId, n] of Object.entries(hold.from ?? {})) held.set(grantId, (held.get(grantId) ?? 0) + n);
      }
      return {
        items: page.map((g) => ({
          id: g._id,
          amount: g.amount,
          reason: g.reason,
          remaining: lots[g._id]?.remaining ?? 0,
          held: held.get(g._id) ?? 0,
          expired: lapsed.get(g._id) ?? 0,
          voided: (lots[g._id]?.voidedByRefund ?? 0) + (lots[g._id]?.voidedByDispute ?? 0),
          expiresAt: g.expiresAt,
          expiredAt: lots[g._id]?.expiredAt ? (g.expiresAt ?? lots[g._id]!.expiredAt!) : null,
          idempotencyKey: g.idempotencyKey,
          createdAt: g.createdAt,
        })),
        more: rows.length > options.limit,
      };
    },
  };
}

export type Grants = ReturnType<typeof createGrants>;
