//! Taking back what is left of a purchase's grant when its payment is refunded or disputed, and
//! giving a dispute's part back when the dispute is won: single-document guarded updates of the
//! account, as a charge is. What each kind took is counted on the grant's lot (`voidedByRefund`,
//! `voidedByDispute`) and every update is pinned to the count it read, so a void asked for twice,
//! or by two workers at once, is applied once.
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import type { Lot } from '../account-documents.js';
import { lotPath, readAccount } from './account-fields.js';
import { BALANCE_FIELDS, latchesAfterCredit, outboxEvent, type BalanceEvents } from './balance-alerts.js';

export type VoidKind = 'refund' | 'dispute';

const COUNTER = { refund: 'voidedByRefund', dispute: 'voidedByDispute' } as const satisfies Record<VoidKind, keyof Lot>;

export interface VoidRequest {
  accountId: string;
  grantId: string;
  kind: VoidKind;
  /**
   * What this kind should have taken from the grant in all: the void takes the difference from
   * what is left of it (never more). `Infinity`: everything that is left (a dispute).
   */
  upTo: number;
  /** Named in `credits.voided`. */
  purchaseId: string;
}

export interface VoidOutcome {
  /** Credits this call took (0: nothing was due, or nothing is left). */
  voided: number;
  balance: number;
}

/**
 * What the grant's voids come to once a reconcile has run on `lot` as read: a won dispute's part
 * given back (restoreLot), the refund's share taken up to `refundUpTo` (voidLot), then, while
 * `disputed`, all that is left. The same arithmetic as the updates below, so a purchase can show
 * the count before the balance moves.
 */
export function voidedAfter(lot: Lot | undefined, plan: { disputed: boolean; refundUpTo: number }, now: number): number {
  if (!lot) return 0;
  let remaining = lot.remaining;
  let byRefund = lot.voidedByRefund ?? 0;
  let byDispute = lot.voidedByDispute ?? 0;
  if (!plan.disputed && byDispute > 0) {
    const lapsed = Boolean(lot.expiredAt) || (lot.expiresAt != null && new Date(lot.expiresAt).getTime() <= now);
    if (!lapsed) remaining += byDispute;
    byDispute = 0;
  }
  if (lot.expiredAt) return byRefund + byDispute;
  const refund = Math.min(Math.max(0, plan.refundUpTo - byRefund), remaining);
  byRefund += refund;
  remaining -= refund;
  if (plan.disputed) byDispute += remaining;
  return byRefund + byDispute;
}

/** The pin of a lot's counter as read: absent, or the value. */
const pinned = (value: number | undefined) => (value === undefined ? { $exists: false } : value);

export function createGrantVoids(db: Db, events: BalanceEvents) {
  const { accounts } = collections(db);

  /**
   * Takes what `request` says is due from what is left of the grant, fires `credits.voided` (and
   * the balance events a debit may cause). Pinned to the balances, the lot's remainder and its
   * counter as read (retried on a race), so the event carries the exact balance it produced.
   */
  async function voidLot(request: VoidRequest, now = Date.now()): Promise<VoidOutcome> {
    const counter = COUNTER[request.kind];
    for (;;) {
      const doc = await readAccount(accounts, request.accountId);
      const lot = doc.lots?.[request.grantId];
      if (!lot || lot.expiredAt) return { voided: 0, balance: doc.balance };
      const before = lot[counter];
      const n = Math.min(Math.max(0, request.upTo - (before ?? 0)), lot.remaining);
      if (n <= 0) return { voided: 0, balance: doc.balance };
      const path = lotPath(request.grantId);
      const after = await accounts.findOneAndUpdate(
        {
          _id: request.accountId,
          balance: doc.balance,
          chargedBalance: doc.chargedBalance,
          [`${path}.remaining`]: lot.remaining,
          [`${path}.${counter}`]: pinned(before),
          [`${path}.expiredAt`]: { $exists: false },
        },
        {
          $inc: { [`${path}.remaining`]: -n, [`${path}.${counter}`]: n, balance: -n, chargedBalance: -n },
          $push: {
            outbox: outboxEvent(
              'credits.voided',
              { amount: n, reason: request.kind, purchaseId: request.purchaseId, balance: doc.balance - n },
              new Date(now),
            ),
          },
        },
        { returnDocument: 'after', projection: BALANCE_FIELDS },
      );
      if (after) {
        await events.afterDebit(request.accountId, after);
        return { voided: n, balance: after.balance };
      }
    }
  }

  /**
   * Gives back what a dispute took from the grant (the dispute was won) and fires `credits.granted`
   * (reason `purchase`). Credits of a grant that has lapsed meanwhile stay lapsed, as they would
   * had they never been voided: the counter is cleared and nothing is given.
   */
  async function restoreLot(request: { accountId: string; grantId: string }, now = Date.now()): Promise<VoidOutcome> {
    const counter = COUNTER.dispute;
    for (;;) {
      const doc = await readAccount(accounts, request.accountId);
      const lot = doc.lots?.[request.grantId];
      const d = lot?.[counter] ?? 0;
      if (!lot || d <= 0) return { voided: 0, balance: doc.balance };
      const path = lotPath(request.grantId);
      const lapsed = Boolean(lot.expiredAt) || (lot.expiresAt != null && new Date(lot.expiresAt).getTime() <= now);
      if (lapsed) {
        await accounts.updateOne({ _id: request.accountId, [`${path}.${counter}`]: d }, { $set: { [`${path}.${counter}`]: 0 } });
        continue;
      }
      const charged = doc.chargedBalance + d;
      const after = await accounts.findOneAndUpdate(
        {
          _id: request.accountId,
          balance: doc.balance,
          chargedBalance: doc.chargedBalance,
          [`${path}.${counter}`]: d,
          [`${path}.expiredAt`]: { $exists: false },
        },
        {
          $inc: { [`${path}.remaining`]: d, [`${path}.${counter}`]: -d, balance: d, chargedBalance: d },
          $set: latchesAfterCredit(doc, charged),
          $push: { outbox: outboxEvent('credits.granted', { amount: d, reason: 'purchase', balance: doc.balance + d }, new Date(now)) },
        },
        { returnDocument: 'after', projection: BALANCE_FIELDS },
      );
      if (after) {
        await events.flushOutbox(request.accountId);
        return { voided: -d, balance: after.balance };
      }
    }
  }

  return { voidLot, restoreLot };
}
