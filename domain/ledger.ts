//! The credits ledger: reserve, commit, refund, applying a grant and expiring one, each a
//! single-document atomic update of the account guarded so that a retried activity is a no-op and
//! two concurrent calls can never both spend the last credits. The account's document holds what
//! is left of each grant (`lots`): a reserve takes the cost from the grants that expire first, a
//! refund gives it back to them. Balance events are decided here, on the charged balance.
import type { Db } from 'mongodb';
import { collections, insertIfAbsent } from '../lib/mongo.js';
import type { AccountDoc, AccountPlan, GrantKind, Hold, LedgerEntry, Lot, OutboxEvent } from '../lib/mongo-documents.js';
import { derivedId, newId } from '../lib/ids.js';
import { createEventRecorder, type EventKind, type EventSink } from '../lib/events.js';
import { allocate, dueLots } from './lots.js';

export const LOW_BALANCE_THRESHOLD = 25;

/** Reasons an operator may grant credits for; `welcome` is the opening grant (FREE_CREDITS or `credits`). */
export const GRANT_REASONS = ['purchase', 'monthly_allowance', 'manual_adjustment'] as const satisfies readonly GrantKind[];
export type GrantReason = (typeof GRANT_REASONS)[number];

/** The opening grant's id: derived, so opening an account records it once. */
export const welcomeGrantId = (accountId: string) => derivedId('grt', `${accountId}:welcome`);

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

export function newAccountDoc(fields: { id: string; name?: string | null; email?: string | null; credits: number; now: Date; plan?: AccountPlan }): AccountDoc {
  return {
    _id: fields.id,
    name: fields.name ?? null,
    email: fields.email ?? null,
    balance: fields.credits,
    chargedBalance: fields.credits,
    holds: {},
    lots: fields.credits > 0 ? { [welcomeGrantId(fields.id)]: { remaining: fields.credits, expiresAt: null } } : {},
    entries: [],
    ...(fields.plan ? { plan: fields.plan } : {}),
    lowArmed: fields.credits >= LOW_BALANCE_THRESHOLD,
    exhaustedArmed: fields.credits > 0,
    outbox: [],
    createdAt: fields.now,
  };
}

const lotPath = (grantId: string) => `lots.${grantId}`;

/** What settle() reads back from the account to decide whether any balance event is due. */
const BALANCE_FIELDS = { balance: 1, chargedBalance: 1, lowArmed: 1, exhaustedArmed: 1, outbox: 1, entries: 1 } as const;

/** True when the charged balance is past a threshold whose latch is still armed (an event is due). */
export function crossedArmedThreshold(a: Pick<AccountDoc, 'chargedBalance' | 'lowArmed' | 'exhaustedArmed'>): boolean {
  return (a.lowArmed && a.chargedBalance < LOW_BALANCE_THRESHOLD) || (a.exhaustedArmed && a.chargedBalance <= 0);
}

function event(event: EventKind, data: Record<string, unknown>, now = new Date()): OutboxEvent {
  return { id: newId('evt'), event, createdAt: now, data };
}

export interface AppliedGrant {
  /** Available balance after the grant (or, when it was in place already, now). */
  balance: number;
  /** False when the grant was in the account already: a repeat applies nothing. */
  applied: boolean;
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

  /** After an update that took credits away: balance events if a threshold was crossed, else any leftovers flushed. */
  async function afterDebit(accountId: string, account: Pick<AccountDoc, 'chargedBalance' | 'lowArmed' | 'exhaustedArmed' | 'outbox' | 'entries'>) {
    if (crossedArmedThreshold(account)) await fireBalanceEvents(accountId);
    else if (account.outbox?.length || account.entries?.length) await flushOutbox(accountId);
  }

  /**
   * An account opened before grants were records holds its credits as one never-expiring lot,
   * recorded under the welcome grant's id. Pinned to the balance read, so no credit is missed.
   */
  async function adoptBalance(doc: AccountDoc): Promise<void> {
    const lots: Record<string, Lot> = doc.balance > 0 ? { [welcomeGrantId(doc._id)]: { remaining: doc.balance, expiresAt: null } } : {};
    await accounts.updateOne({ _id: doc._id, lots: { $exists: false }, balance: doc.balance }, { $set: { lots } });
  }

  /**
   * The account with its lots in place and none past its expiry: lots that are due are expired
   * first, so a reserve never spends credits that have lapsed, whether or not the sweep got there.
   */
  async function current(accountId: string, now: number): Promise<AccountDoc & { lots: Record<string, Lot> }> {
    for (;;) {
      const doc = await balanceOf(accountId);
      if (!doc.lots) {
        await adoptBalance(doc);
        continue;
      }
      const due = dueLots(doc.lots, now);
      if (due.length === 0) return doc as AccountDoc & { lots: Record<string, Lot> };
      for (const grantId of due) await expireLot(accountId, grantId, now);
    }
  }

  /**
   * What is left of a grant past its expiry leaves the balance, recorded as an `expired` entry in
   * the usage ledger (in the same update, through `entries`), and balance events follow. Credits
   * of the grant held by calls still running stay with those calls (see refund). A repeat is a no-op.
   */
  async function expireLot(accountId: string, grantId: string, now: number): Promise<number> {
    for (;;) {
      const doc = await balanceOf(accountId);
      const lot = doc.lots?.[grantId];
      if (!lot || lot.expiredAt || lot.expiresAt == null || new Date(lot.expiresAt).getTime() > now) return 0;
      const left = lot.remaining;
      const entry: LedgerEntry = { _id: `exp_${grantId}`, accountId, tool: null, credits: left, outcome: 'expired', grantId, at: new Date(lot.expiresAt) };
      const after = await accounts.findOneAndUpdate(
        { _id: accountId, [`${lotPath(grantId)}.remaining`]: left, [`${lotPath(grantId)}.expiredAt`]: { $exists: false } },
        {
          $set: { [`${lotPath(grantId)}.remaining`]: 0, [`${lotPath(grantId)}.expiredAt`]: new Date(now) },
          $inc: { balance: -left, chargedBalance: -left },
          ...(left > 0 ? { $push: { entries: entry } } : {}),
        },
        { returnDocument: 'after', projection: BALANCE_FIELDS },
      );
      if (after) {
        await afterDebit(accountId, after);
        return left;
      }
    }
  }

  /**
   * Ends a hold as `wanted`, unless the call's ledger entry already says otherwise. The entry is
   * written first and is the decision: the account update after it is guarded by the hold, so
   * an attempt retried after a crash between the two (or the sweeper, for a call terminated
   * there) completes that same decision, never the opposite one. Deciding by the account update
   * instead would leave "hold gone, no entry" ambiguous between a charge and a refund.
   */
  async function settle(call: CallRef, wanted: 'charged' | 'refunded', now: number): Promise<CommitResult> {
    const entry = await ledger.findOneAndUpdate(
      { _id: call.requestId },
      { $setOnInsert: { accountId: call.accountId, tool: call.tool, credits: wanted === 'charged' ? call.cost : 0, outcome: wanted, at: new Date(now) } },
      { upsert: true, returnDocument: 'after' },
    );
    const outcome = entry?.outcome ?? wanted;
    const account = outcome === 'charged' ? await charge(call) : await giveBack(call, now);
    return { outcome: outcome === 'charged' ? 'charged' : 'refunded', balance: account.balance, charged: outcome === 'charged' ? call.cost : 0 };
  }

  /** The hold becomes a charge: the credits already left the grants at reserve. One write. */
  async function charge(call: CallRef): Promise<Pick<AccountDoc, 'balance'>> {
    const after = await accounts.findOneAndUpdate(
      { _id: call.accountId, [holdPath(call.requestId)]: { $exists: true } },
      { $unset: { [holdPath(call.requestId)]: '' }, $inc: { chargedBalance: -call.cost } },
      { returnDocument: 'after', projection: BALANCE_FIELDS },
    );
    // The hold is already gone when this is a retry of a step that got through: read it once.
    const account = after ?? (await balanceOf(call.accountId));
    // Most commits cross no threshold and leave no event behind: those end here, in two writes.
    await afterDebit(call.accountId, account);
    return account;
  }

  /**
   * The held credits go back to the grants they came from. Credits of a grant that expired while
   * the call ran lapse instead, as they would have had the call never been made: they leave the
   * charged balance and are recorded as an expiry of that grant (`exp_<grantId>_<requestId>`).
   * The update pins which of those grants have expired, so it cannot race their expiry.
   */
  async function giveBack(call: CallRef, now: number): Promise<Pick<AccountDoc, 'balance'>> {
    for (;;) {
      const doc = await balanceOf(call.accountId);
      const hold: Hold | undefined = doc.holds?.[call.requestId];
      if (!hold) {
        if (doc.outbox?.length || doc.entries?.length) await flushOutbox(call.accountId);
        return doc;
      }
      if (!doc.lots) {
        await adoptBalance(doc);
        continue;
      }
      // A hold from before grants were records goes back to the never-expiring opening lot.
      const from = hold.from ?? { [welcomeGrantId(call.accountId)]: hold.cost };
      const filter: Record<string, unknown> = { _id: call.accountId, [holdPath(call.requestId)]: { $exists: true } };
      const inc: Record<string, number> = { balance: 0, chargedBalance: 0 };
      const lapsed: LedgerEntry[] = [];
      for (const [grantId, n] of Object.entries(from)) {
        const lot = doc.lots[grantId];
        if (!lot && !hold.from) {
          filter[lotPath(grantId)] = { $exists: false }; // $inc creates it: no expiry
          inc[`${lotPath(grantId)}.remaining`] = n;
          inc.balance! += n;
        } else if (lot && !lot.expiredAt) {
          filter[`${lotPath(grantId)}.expiredAt`] = { $exists: false };
          inc[`${lotPath(grantId)}.remaining`] = n;
          inc.balance! += n;
        } else {
          filter[`${lotPath(grantId)}.expiredAt`] = { $exists: true };
          inc.chargedBalance! -= n;
          lapsed.push({ _id: `exp_${grantId}_${call.requestId}`, accountId: call.accountId, tool: call.tool, credits: n, outcome: 'expired', grantId, at: new Date(now) });
        }
      }
      const after = await accounts.findOneAndUpdate(
        filter,
        { $unset: { [holdPath(call.requestId)]: '' }, $inc: inc, ...(lapsed.length ? { $push: { entries: { $each: lapsed } } } : {}) },
        { returnDocument: 'after', projection: BALANCE_FIELDS },
      );
      if (after) {
        if (lapsed.length) await afterDebit(call.accountId, after);
        else if (after.outbox?.length || after.entries?.length) await flushOutbox(call.accountId);
        return after;
      }
    }
  }

  return {
    balanceOf,
    flushOutbox,
    expireLot,

    /**
     * Takes the cost out of the available balance, from the grants that expire first, and records
     * a hold saying which; a repeat is a no-op, and so is a reserve after the call was settled when
     * the caller says it may be (`mayBeSettled`): the commit or refund that follows then answers
     * what was decided. The update is guarded by what it takes from each grant, so two reserves
     * can never spend the same credits; one that loses a race reads again and chooses again.
     */
    async reserve(call: CallRef, now = Date.now()): Promise<ReserveResult> {
      if (call.mayBeSettled && (await ledger.findOne({ _id: call.requestId }, { projection: { _id: 1 } }))) {
        return { ok: true, balance: (await balanceOf(call.accountId)).balance };
      }
      for (;;) {
        const doc = await current(call.accountId, now);
        if (doc.holds?.[call.requestId]) return { ok: true, balance: doc.balance };
        const take = allocate(doc.lots, call.cost, now);
        if (!take) return { ok: false, balance: doc.balance };
        const filter: Record<string, unknown> = { _id: call.accountId, balance: { $gte: call.cost }, [holdPath(call.requestId)]: { $exists: false } };
        const inc: Record<string, number> = { balance: -call.cost };
        for (const [grantId, n] of Object.entries(take)) {
          filter[`${lotPath(grantId)}.remaining`] = { $gte: n };
          filter[`${lotPath(grantId)}.expiredAt`] = { $exists: false };
          inc[`${lotPath(grantId)}.remaining`] = -n;
        }
        const hold: Hold = { cost: call.cost, tool: call.tool, at: new Date(now), from: take };
        const after = await accounts.findOneAndUpdate(filter, { $inc: inc, $set: { [holdPath(call.requestId)]: hold } }, { returnDocument: 'after', projection: { balance: 1 } });
        if (after) return { ok: true, balance: after.balance };
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
     * balance the grant produced.
     */
    async applyGrant(grant: { accountId: string; grantId: string; amount: number; reason: GrantKind; expiresAt: Date | null }, now = Date.now()): Promise<AppliedGrant> {
      const { accountId, grantId, amount } = grant;
      for (;;) {
        const doc = await current(accountId, now);
        if (doc.lots[grantId]) return { balance: doc.balance, applied: false };
        const charged = doc.chargedBalance + amount;
        const granted = await accounts.findOneAndUpdate(
          { _id: accountId, balance: doc.balance, chargedBalance: doc.chargedBalance, [lotPath(grantId)]: { $exists: false } },
          {
            $inc: { balance: amount, chargedBalance: amount },
            $set: {
              [lotPath(grantId)]: { remaining: amount, expiresAt: grant.expiresAt },
              lowArmed: doc.lowArmed || charged >= LOW_BALANCE_THRESHOLD,
              exhaustedArmed: doc.exhaustedArmed || charged > 0,
            },
            ...(grant.reason === 'welcome'
              ? {}
              : { $push: { outbox: event('credits.granted', { amount, reason: grant.reason, balance: doc.balance + amount }, new Date(now)) } }),
          },
          { returnDocument: 'after', projection: BALANCE_FIELDS },
        );
        if (granted) {
          await flushOutbox(accountId);
          return { balance: granted.balance, applied: true };
        }
      }
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;
