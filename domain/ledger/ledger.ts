//! The credits ledger: reserve, commit, refund, applying a grant and expiring one, each a
//! single-document atomic update of the account guarded so that a retried activity is a no-op and
//! two concurrent calls can never both spend the last credits. The account's document holds what
//! is left of each grant (`lots`): a reserve takes the cost from the grants that expire first, a
//! refund gives it back to them. Balance events are decided here, on the charged balance.
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import type { AccountDoc, AuditDraft, GrantKind } from '../account-documents.js';
import type { EventSink } from '../events/index.js';
import { keyLimitRefusal, lotPath, readAccount, spendMonth } from './account-fields.js';
import { BALANCE_FIELDS, createBalanceEvents, latchesAfterCredit, outboxEvent } from './balance-alerts.js';
import { createGrantVoids } from './grant-voids.js';
import { createLotUpkeep } from './lot-upkeep.js';
import { createQuickReserve } from './quick-reserve.js';
import { createSettlement } from './settlement.js';
import { allocate } from './lots.js';
import type { CallRef, CommitResult, ReserveResult } from '../../contracts/call.js';

export { AccountNotFoundError, LOW_BALANCE_THRESHOLD, newAccountDoc, welcomeGrantId } from './account-fields.js';
export { crossedArmedThreshold } from './balance-alerts.js';

/** Reasons an operator may grant credits for; `welcome` is the opening grant (FREE_CREDITS or `credits`). */
export const GRANT_REASONS = ['purchase', 'monthly_allowance', 'manual_adjustment'] as const satisfies readonly GrantKind[];
export type GrantReason = (typeof GRANT_REASONS)[number];

export interface AppliedGrant {
  /** Available balance after the grant (or, when it was in place already, now). */
  balance: number;
  /** False when the grant was in the account already: a repeat applies nothing. */
  applied: boolean;
}

/** Told that a charge took an account below its auto-recharge threshold (domain/billing/recharge-trigger.ts); must not keep the call waiting. */
export type RechargeSink = (accountId: string) => void;

export interface LedgerOptions {
  /** Where a due auto-recharge is handed on; without it (a process that runs no calls) none is noticed here. */
  onRechargeDue?: RechargeSink;
}

export function createLedger(db: Db, onEvent?: EventSink, options: LedgerOptions = {}) {
  const { accounts, ledger } = collections(db);
  const events = createBalanceEvents(db, onEvent);
  const upkeep = createLotUpkeep(db, events);
  const { settle } = createSettlement(db, events, upkeep, options.onRechargeDue);
  const voids = createGrantVoids(db, events);
  const reserves = createQuickReserve(db);
  const balanceOf = (accountId: string): Promise<AccountDoc> => readAccount(accounts, accountId);

  return {
    balanceOf,
    flushOutbox: events.flushOutbox,
    expireLot: upkeep.expireLot,
    voidLot: voids.voidLot,
    restoreLot: voids.restoreLot,

    /**
     * Takes the cost out of the available balance, from the grants that expire first, and records
     * a hold saying which; a repeat is a no-op, and so is a reserve after the call was settled when
     * the caller says it may be (`mayBeSettled`): the commit or refund that follows then answers
     * what was decided. The update is guarded by what it takes from each grant, so two reserves
     * can never spend the same credits; one that loses a race reads again and chooses again. A call
     * of an API key counts its cost in the key's month (`keySpend`), guarded by the key's
     * monthlyCreditLimit when it has one: refused with `keyLimit` past it.
     */
    async reserve(call: CallRef, now = Date.now()): Promise<ReserveResult> {
      if (call.mayBeSettled && (await ledger.findOne({ _id: call.requestId }, { projection: { _id: 1 } }))) {
        return { ok: true, balance: (await balanceOf(call.accountId)).balance };
      }
      const quick = await reserves.reserveAsBefore(call, now);
      if (quick) return quick;
      for (;;) {
        const doc = await upkeep.current(call.accountId, now);
        if (doc.holds?.[call.requestId]) return { ok: true, balance: doc.balance };
        const keyLimit = keyLimitRefusal(doc, call, spendMonth(now));
        if (keyLimit) return { ok: false, balance: doc.balance, keyLimit };
        const take = allocate(doc.lots, call.cost, now);
        if (!take) return { ok: false, balance: doc.balance };
        const held = await reserves.takeHold(call, take, {}, now);
        if (held) return held;
      }
    },

    /**
     * Turns the hold into a charge, records it in the ledger and fires balance events; past the
     * call's answerBy it refunds instead. A retried commit (its worker died, or the database was
     * down until after answerBy) applies what the first attempt decided: see settle().
     */
    async commit(call: CallRef, now = Date.now()): Promise<CommitResult> {
      const late = call.answerBy !== undefined && now > call.answerBy;
      return settle(call, late ? 'refunded' : 'charged', now);
    },

    /**
     * Gives the held credits back; nothing is charged and no event fires (but an expiry of credits
     * whose grant lapsed meanwhile). Like commit, it applies what an earlier attempt decided:
     * `outcome` says `charged` when that was a charge.
     */
    async refund(call: CallRef, now = Date.now()): Promise<CommitResult> {
      return settle(call, 'refunded', now);
    },

    /**
     * Puts a grant's credits in the account and fires `credits.granted`, unless the grant is there
     * already (its lot stays in the document for good, expired or not): a repeat applies nothing.
     * The update is pinned to the balances read just before (retried on a race) so that re-arming
     * the low and exhausted latches, and the balance in the event, are decided on the exact
     * balance the grant produced. `audit`: its audit entry's draft, written by the same update
     * (domain/audit/log.ts), so the grant is never in the account without it.
     */
    async applyGrant(
      grant: { accountId: string; grantId: string; amount: number; reason: GrantKind; expiresAt: Date | null; audit?: AuditDraft },
      now = Date.now(),
    ): Promise<AppliedGrant> {
      const { accountId, grantId, amount } = grant;
      for (;;) {
        const doc = await upkeep.current(accountId, now);
        if (doc.lots[grantId]) return { balance: doc.balance, applied: false };
        const charged = doc.chargedBalance + amount;
        const granted = await accounts.findOneAndUpdate(
          { _id: accountId, balance: doc.balance, chargedBalance: doc.chargedBalance, [lotPath(grantId)]: { $exists: false } },
          {
            $inc: { balance: amount, chargedBalance: amount, lotsVersion: 1 },
            $set: { [lotPath(grantId)]: { remaining: amount, expiresAt: grant.expiresAt }, ...latchesAfterCredit(doc, charged) },
            ...pushes({
              outbox:
                grant.reason === 'welcome'
                  ? undefined
                  : outboxEvent('credits.granted', { amount, reason: grant.reason, balance: doc.balance + amount }, new Date(now)),
              auditDrafts: grant.audit,
            }),
          },
          { returnDocument: 'after', projection: BALANCE_FIELDS },
        );
        if (granted) {
          await events.flushOutbox(accountId);
          return { balance: granted.balance, applied: true };
        }
      }
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;

/** `$push` of the values given (none: no `$push`, which an update may not leave empty). */
function pushes(values: Record<string, unknown>): { $push?: Record<string, unknown> } {
  const given = Object.entries(values).filter(([, v]) => v !== undefined);
  return given.length ? { $push: Object.fromEntries(given) } : {};
}
