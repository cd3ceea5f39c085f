//! A reserve's write, and a reserve without a read: the lots this ledger saw at its last reserve
//! for an account are enough to choose from in the common case, and the write pins what that
//! choice depends on.
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import type { AccountDoc, Hold, Lot } from '../account-documents.js';
import { holdPath, keySpendPath, lotPath, spendMonth } from './account-fields.js';
import { singleLotChoice } from './lots.js';
import type { CallRef, ReserveResult } from '../../contracts/call.js';

/** What a reserve reads back: the balance it answers and the lots the next reserve may choose from. */
const RESERVE_FIELDS = { balance: 1, lots: 1, lotsVersion: 1 } as const;

/** Accounts whose lots a ledger keeps in mind between reserves; the oldest is forgotten past this. */
const LOT_VIEWS = 10_000;

interface LotView {
  version: number;
  lots: Record<string, Lot>;
}

/** A bounded map of the lots last seen per account, least recently used forgotten first. */
function createLotViews(capacity: number) {
  const views = new Map<string, LotView>();
  return {
    get(accountId: string): LotView | undefined {
      const view = views.get(accountId);
      if (view) {
        views.delete(accountId);
        views.set(accountId, view);
      }
      return view;
    },
    remember(doc: Pick<AccountDoc, '_id' | 'lots' | 'lotsVersion'>): void {
      views.delete(doc._id);
      if (doc.lots) views.set(doc._id, { version: doc.lotsVersion ?? 0, lots: doc.lots });
      if (views.size > capacity) views.delete(views.keys().next().value!);
    },
  };
}

export function createQuickReserve(db: Db) {
  const { accounts } = collections(db);

  /**
   * The lots each account had at this ledger's last reserve for it, so that the next reserve can
   * choose without reading the account first (see reserveAsBefore). Only a hint: the update pins
   * what the choice depends on.
   */
  const lastLots = createLotViews(LOT_VIEWS);

  /**
   * A reserve in one write when the account's lots, as this ledger last saw them, make the common
   * choice (singleLotChoice): the update pins the lots' version (no grant applied or lot expired
   * since), the chosen lot's cover and the emptiness of the lots spent before it, so it applies
   * only where a fresh read would have chosen the same. Undefined when it did not apply (or there
   * was nothing to go on): the caller reads and chooses.
   */
  async function reserveAsBefore(call: CallRef, now: number): Promise<ReserveResult | undefined> {
    const seen = lastLots.get(call.accountId);
    const choice = seen && singleLotChoice(seen.lots, call.cost, now);
    if (!choice) return undefined;
    const pins: Record<string, unknown> = { lotsVersion: seen.version === 0 ? { $exists: false } : seen.version };
    for (const id of choice.emptyBefore) pins[`${lotPath(id)}.remaining`] = { $lte: 0 };
    return takeHold(call, { [choice.from]: call.cost }, pins, now);
  }

  /**
   * The reserve's one write: the hold, taking `take` from each lot, guarded so that no lot goes
   * below zero or is spent past its lapse and a repeat holds nothing twice, plus what the choice of
   * `take` was made on (`pins`). Undefined when the guard did not hold.
   */
  async function takeHold(
    call: CallRef,
    take: Record<string, number>,
    pins: Record<string, unknown>,
    now: number,
  ): Promise<ReserveResult | undefined> {
    const filter: Record<string, unknown> = {
      _id: call.accountId,
      balance: { $gte: call.cost },
      [holdPath(call.requestId)]: { $exists: false },
      ...pins,
    };
    const inc: Record<string, number> = { balance: -call.cost };
    for (const [grantId, n] of Object.entries(take)) {
      filter[`${lotPath(grantId)}.remaining`] = { $gte: n };
      filter[`${lotPath(grantId)}.expiredAt`] = { $exists: false };
      inc[`${lotPath(grantId)}.remaining`] = -n;
    }
    const hold: Hold = { cost: call.cost, tool: call.tool, at: new Date(now), from: take };
    if (call.keyId) {
      // The key's month counts the cost in this same update; with a limit, the update is guarded by
      // it as by the balance, so concurrent calls can never take the key past it.
      const month = spendMonth(now);
      const spent = keySpendPath(call.keyId, month);
      if (call.keyCreditLimit !== undefined) {
        if (call.cost > call.keyCreditLimit) return undefined;
        filter[spent] = { $not: { $gt: call.keyCreditLimit - call.cost } };
      }
      inc[spent] = call.cost;
      Object.assign(hold, { keyId: call.keyId, month });
    }
    const after = await accounts.findOneAndUpdate(
      filter,
      { $inc: inc, $set: { [holdPath(call.requestId)]: hold } },
      { returnDocument: 'after', projection: RESERVE_FIELDS },
    );
    if (!after) return undefined;
    lastLots.remember(after);
    return { ok: true, balance: after.balance };
  }

  return { reserveAsBefore, takeHold };
}
