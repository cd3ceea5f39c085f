//! Balance events and the account's outboxes: `credits.low` and `credits.exhausted` decided on
//! the charged balance with a latch each, and what an update of the account left in its `outbox`
//! (events) and `entries` (usage-ledger rows) copied out after it.
import type { Db } from 'mongodb';
import { collections, insertIfAbsent } from '../../lib/mongo.js';
import type { AccountDoc, OutboxEvent } from '../account-documents.js';
import { newId } from '../../lib/ids.js';
import type { EventKind } from '../../contracts/event-kinds.js';
import { createEventRecorder, type EventSink } from '../events/index.js';
import { LOW_BALANCE_THRESHOLD, readAccount } from './account-fields.js';

/**
 * What settle() reads back from the account to decide whether any balance event is due, or the
 * account's auto-recharge: the same update's answer, so neither costs a call a read.
 */
export const BALANCE_FIELDS = {
  balance: 1,
  chargedBalance: 1,
  lowArmed: 1,
  exhaustedArmed: 1,
  outbox: 1,
  entries: 1,
  rechargeBelow: 1,
  rechargeArmed: 1,
  rechargeArmsAt: 1,
} as const;

/** True when the charged balance is past a threshold whose latch is still armed (an event is due). */
export function crossedArmedThreshold(a: Pick<AccountDoc, 'chargedBalance' | 'lowArmed' | 'exhaustedArmed'>): boolean {
  return (a.lowArmed && a.chargedBalance < LOW_BALANCE_THRESHOLD) || (a.exhaustedArmed && a.chargedBalance <= 0);
}

/**
 * True when a charge took the charged balance below auto-recharge's threshold while its latch is
 * armed (or a month's cap that disarmed it has run out): the account's recharge is due. Decided on
 * the charge's own update, like the balance events.
 */
export function rechargeDue(
  a: Pick<AccountDoc, 'chargedBalance' | 'rechargeBelow' | 'rechargeArmed' | 'rechargeArmsAt'>,
  now: number,
): boolean {
  if (a.rechargeBelow === undefined || a.chargedBalance >= a.rechargeBelow) return false;
  return a.rechargeArmed === true || (a.rechargeArmsAt != null && new Date(a.rechargeArmsAt).getTime() <= now);
}

/**
 * The latches an update that adds credits sets, from the account as read before it and the charged
 * balance it produces: each re-arms once the balance is back at or over its threshold.
 */
export function latchesAfterCredit(
  doc: Pick<AccountDoc, 'lowArmed' | 'exhaustedArmed' | 'rechargeBelow' | 'rechargeArmed'>,
  charged: number,
): Record<string, boolean> {
  const latches: Record<string, boolean> = {
    lowArmed: doc.lowArmed || charged >= LOW_BALANCE_THRESHOLD,
    exhaustedArmed: doc.exhaustedArmed || charged > 0,
  };
  if (doc.rechargeBelow !== undefined) latches.rechargeArmed = doc.rechargeArmed === true || charged >= doc.rechargeBelow;
  return latches;
}

export function outboxEvent(event: EventKind, data: Record<string, unknown>, now = new Date()): OutboxEvent {
  return { id: newId('evt'), event, createdAt: now, data };
}

/** What a debit's update read back, for afterDebit. */
export type DebitedAccount = Pick<
  AccountDoc,
  'chargedBalance' | 'lowArmed' | 'exhaustedArmed' | 'outbox' | 'entries' | 'rechargeBelow' | 'rechargeArmed' | 'rechargeArmsAt'
>;

export function createBalanceEvents(db: Db, onEvent?: EventSink) {
  const { accounts, ledger } = collections(db);
  const record = createEventRecorder(db, onEvent);

  /** Moves events from the account's outbox to `events` (idempotent: ids are unique). */
  async function flushOutbox(accountId: string): Promise<number> {
    const doc = await accounts.findOne({ _id: accountId }, { projection: { outbox: 1, entries: 1 } });
    const pending = doc?.outbox ?? [];
    for (const e of pending) {
      await record({ ...e, accountId, event: e.event as EventKind });
      await accounts.updateOne({ _id: accountId }, { $pull: { outbox: { id: e.id } } });
    }
    // Expiries decided by an update of the account, copied to the usage ledger (ids are unique).
    const entries = doc?.entries ?? [];
    for (const entry of entries) {
      await insertIfAbsent(ledger, entry);
      await accounts.updateOne({ _id: accountId }, { $pull: { entries: { _id: entry._id } } });
    }
    return pending.length + entries.length;
  }

  /**
   * Fires `credits.low` and `credits.exhausted` when the charged balance has crossed and the
   * latch is still armed. The latch flip and the event are one atomic update, so each crossing
   * fires exactly once however many commits race past it; the filter pins the balance value
   * read just before, so the event carries the balance at the moment it fired.
   */
  async function fireBalanceEvents(accountId: string): Promise<void> {
    for (;;) {
      const doc = await readAccount(accounts, accountId);
      if (!doc.lowArmed || doc.chargedBalance >= LOW_BALANCE_THRESHOLD) break;
      const balance = doc.chargedBalance;
      const fired = await accounts.updateOne(
        { _id: accountId, lowArmed: true, chargedBalance: balance },
        {
          $set: { lowArmed: false },
          $push: {
            outbox: outboxEvent('credits.low', {
              balance,
              threshold: LOW_BALANCE_THRESHOLD,
              message: `Your credit balance is ${balance}, below ${LOW_BALANCE_THRESHOLD}.`,
            }),
          },
        },
      );
      if (fired.modifiedCount === 1) break;
    }
    await accounts.updateOne(
      { _id: accountId, exhaustedArmed: true, chargedBalance: { $lte: 0 } },
      {
        $set: { exhaustedArmed: false },
        $push: {
          outbox: outboxEvent('credits.exhausted', {
            balance: 0,
            message: 'Your credit balance is 0; calls are refused until credits are added.',
          }),
        },
      },
    );
    await flushOutbox(accountId);
  }

  /** After an update that took credits away: balance events if a threshold was crossed, else any leftovers flushed. */
  async function afterDebit(accountId: string, account: DebitedAccount) {
    if (crossedArmedThreshold(account)) await fireBalanceEvents(accountId);
    else if (account.outbox?.length || account.entries?.length) await flushOutbox(accountId);
  }

  return { flushOutbox, afterDebit };
}

export type BalanceEvents = ReturnType<typeof createBalanceEvents>;
