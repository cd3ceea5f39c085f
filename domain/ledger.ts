//! The credits ledger: reserve, commit, refund and grant, each a single-document atomic update
//! guarded so that a retried activity is a no-op and two concurrent calls can never both spend
//! the last credits. Balance events are decided here, on the charged balance.
import type { Db } from 'mongodb';
import { collections, type AccountDoc, type LedgerEntry, type OutboxEvent } from '../lib/mongo.js';
import { newId } from '../lib/ids.js';
import { createEventRecorder, type EventKind, type EventSink } from '../lib/events.js';

export const LOW_BALANCE_THRESHOLD = 25;

export const GRANT_REASONS = ['purchase', 'monthly_allowance', 'manual_adjustment'] as const;
export type GrantReason = (typeof GRANT_REASONS)[number];

export interface CallRef {
  accountId: string;
  requestId: string;
  tool: string;
  cost: number;
  /**
   * Epoch ms after which the API no longer waits for this call's answer (ToolCallInput.answerBy).
   * A commit that runs later refunds instead: nobody will see the 200 it would pay for.
   */
  answerBy?: number;
  /**
   * Set on a reserve that may follow this call's own settlement: a workflow task re-run after its
   * worker died, whose earlier run may have committed or refunded before it could report. Such a
   * reserve reads the call's ledger entry first and holds nothing when the call is settled.
   */
  mayBeSettled?: boolean;
}

export type ReserveResult = { ok: true; balance: number } | { ok: false; balance: number };

export interface CommitResult {
  /** `refunded` when the commit came after the call's answerBy. */
  outcome: 'charged' | 'refunded';
  /** Available balance after the commit. */
  balance: number;
  /** Credits charged: the cost, or 0 when refunded. */
  charged: number;
}

export class AccountNotFoundError extends Error {
  override readonly name = 'AccountNotFoundError';
}

const holdPath = (requestId: string) => `holds.${requestId}`;

export function newAccountDoc(fields: { id: string; name?: string | null; email?: string | null; credits: number; now: Date }): AccountDoc {
  return {
    _id: fields.id,
    name: fields.name ?? null,
    email: fields.email ?? null,
    balance: fields.credits,
    chargedBalance: fields.credits,
    holds: {},
    lowArmed: fields.credits >= LOW_BALANCE_THRESHOLD,
    exhaustedArmed: fields.credits > 0,
    outbox: [],
    createdAt: fields.now,
  };
}

/** What settle() reads back from the account to decide whether any balance event is due. */
const BALANCE_FIELDS = { balance: 1, chargedBalance: 1, lowArmed: 1, exhaustedArmed: 1, outbox: 1 } as const;

/** True when the charged balance is past a threshold whose latch is still armed (an event is due). */
export function crossedArmedThreshold(a: Pick<AccountDoc, 'chargedBalance' | 'lowArmed' | 'exhaustedArmed'>): boolean {
  return (a.lowArmed && a.chargedBalance < LOW_BALANCE_THRESHOLD) || (a.exhaustedArmed && a.chargedBalance <= 0);
}

function event(event: EventKind, data: Record<string, unknown>, now = new Date()): OutboxEvent {
  return { id: newId('evt'), event, createdAt: now, data };
}

export function createLedger(db: Db, onEvent?: EventSink) {
  const { accounts, ledger } = collections(db);
  const record = createEventRecorder(db, onEvent);

  async function balanceOf(accountId: string): Promise<AccountDoc> {
    const doc = await accounts.findOne({ _id: accountId });
    if (!doc) throw new AccountNotFoundError(`account ${accountId} does not exist`);
    return doc;
  }

  /** Moves events from the account's outbox to `events` (idempotent: ids are unique). */
  async function flushOutbox(accountId: string): Promise<number> {
    const doc = await accounts.findOne({ _id: accountId }, { projection: { outbox: 1 } });
    const pending = doc?.outbox ?? [];
    for (const e of pending) {
      await record({ ...e, accountId, event: e.event as EventKind });
      await accounts.updateOne({ _id: accountId }, { $pull: { outbox: { id: e.id } } });
    }
    return pending.length;
  }

  /**
   * Fires `credits.low` and `credits.exhausted` when the charged balance has crossed and the
   * latch is still armed. The latch flip and the event are one atomic update, so each crossing
   * fires exactly once however many commits race past it; the filter pins the balance value
   * read just before, so the event carries the balance at the moment it fired.
   */
  async function fireBalanceEvents(accountId: string): Promise<void> {
    for (;;) {
      const doc = await balanceOf(accountId);
      if (!doc.lowArmed || doc.chargedBalance >= LOW_BALANCE_THRESHOLD) break;
      const balance = doc.chargedBalance;
      const fired = await accounts.updateOne(
        { _id: accountId, lowArmed: true, chargedBalance: balance },
        {
          $set: { lowArmed: false },
          $push: {
            outbox: event('credits.low', {
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
          outbox: event('credits.exhausted', { balance: 0, message: 'Your credit balance is 0; calls are refused until credits are added.' }),
        },
      },
    );
    await flushOutbox(accountId);
  }

  /**
   * Ends a hold as `wanted`, unless the call's ledger entry already says otherwise. The entry is
   * written first and is the decision: the account update after it is guarded by the hold, so
   * an attempt retried after a crash between the two (or the sweeper, for a call terminated
   * there) completes that same decision, never the opposite one. Deciding by the account update
   * instead would leave "hold gone, no entry" ambiguous between a charge and a refund.
   */
  async function settle(call: CallRef, wanted: LedgerEntry['outcome']): Promise<CommitResult> {
    const entry = await ledger.findOneAndUpdate(
      { _id: call.requestId },
      { $setOnInsert: { accountId: call.accountId, tool: call.tool, credits: wanted === 'charged' ? call.cost : 0, outcome: wanted, at: new Date() } },
      { upsert: true, returnDocument: 'after' },
    );
    const outcome = entry?.outcome ?? wanted;
    const after = await accounts.findOneAndUpdate(
      { _id: call.accountId, [holdPath(call.requestId)]: { $exists: true } },
      { $unset: { [holdPath(call.requestId)]: '' }, $inc: outcome === 'charged' ? { chargedBalance: -call.cost } : { balance: call.cost } },
      { returnDocument: 'after', projection: BALANCE_FIELDS },
    );
    // The hold is already gone when this is a retry of a step that got through: read it once.
    const account = after ?? (await balanceOf(call.accountId));
    // Most commits cross no threshold and leave no event behind: those end here, in two writes.
    if (outcome === 'charged' && crossedArmedThreshold(account)) await fireBalanceEvents(call.accountId);
    else if (account.outbox?.length) await flushOutbox(call.accountId); // left by a step that died before its flush
    return { outcome, balance: account.balance, charged: outcome === 'charged' ? call.cost : 0 };
  }

  return {
    balanceOf,
    flushOutbox,

    /**
     * Takes the cost out of the available balance and records a hold; a repeat is a no-op, and so
     * is a reserve after the call was settled when the caller says it may be (`mayBeSettled`): the
     * commit or refund that follows then answers what was decided. Only a re-run pays the read.
     */
    async reserve(call: CallRef): Promise<ReserveResult> {
      if (call.mayBeSettled && (await ledger.findOne({ _id: call.requestId }, { projection: { _id: 1 } }))) {
        return { ok: true, balance: (await balanceOf(call.accountId)).balance };
      }
      const hold = { cost: call.cost, tool: call.tool, at: new Date() };
      const after = await accounts.findOneAndUpdate(
        { _id: call.accountId, balance: { $gte: call.cost }, [holdPath(call.requestId)]: { $exists: false } },
        { $inc: { balance: -call.cost }, $set: { [holdPath(call.requestId)]: hold } },
        { returnDocument: 'after' },
      );
      if (after) return { ok: true, balance: after.balance };
      const doc = await balanceOf(call.accountId);
      if (doc.holds?.[call.requestId]) return { ok: true, balance: doc.balance };
      return { ok: false, balance: doc.balance };
    },

    /**
     * Turns the hold into a charge, records it in the ledger and fires balance events; past the
     * call's answerBy it refunds instead. A retried commit (its worker died, or the database was
     * down until after answerBy) applies what the first attempt decided: see settle().
     */
    async commit(call: CallRef): Promise<CommitResult> {
      const late = call.answerBy !== undefined && Date.now() > call.answerBy;
      return settle(call, late ? 'refunded' : 'charged');
    },

    /**
     * Gives the held credits back; nothing is charged and no event fires. Like commit, it applies
     * what an earlier attempt decided: `outcome` says `charged` when that was a charge.
     */
    async refund(call: CallRef): Promise<CommitResult> {
      return settle(call, 'refunded');
    },
    /**
     * Adds credits and fires `credits.granted`. The update is pinned to the balances read just
     * before (retried on a race) so that re-arming the low and exhausted latches, and the balance
     * in the event, are decided on the exact balance the grant produced.
     */
    async grant(accountId: string, amount: number, reason: GrantReason): Promise<{ balance: number }> {
      for (;;) {
        const doc = await balanceOf(accountId);
        const charged = doc.chargedBalance + amount;
        const granted = await accounts.findOneAndUpdate(
          { _id: accountId, balance: doc.balance, chargedBalance: doc.chargedBalance },
          {
            $inc: { balance: amount, chargedBalance: amount },
            $set: {
              lowArmed: doc.lowArmed || charged >= LOW_BALANCE_THRESHOLD,
              exhaustedArmed: doc.exhaustedArmed || charged > 0,
            },
            $push: { outbox: event('credits.granted', { amount, reason, balance: doc.balance + amount }) },
          },
          { returnDocument: 'after' },
        );
        if (granted) {
          await flushOutbox(accountId);
          return { balance: granted.balance };
        }
      }
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;
