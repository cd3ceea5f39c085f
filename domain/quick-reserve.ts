//! A reserve without a read: the lots this ledger saw at its last reserve for an account are
//! enough to choose from in the common case, and the update pins what that choice depends on.
import type { Db } from 'mongodb';
import { collections } from '../lib/mongo.js';
import type { AccountDoc, Hold, Lot } from '../lib/mongo-documents.js';
import { holdPath, lotPath } from './account-doc.js';
import { singleLotChoice } from './lots.js';
import type { CallRef, ReserveResult } from './ledger.js';

/** What a reserve reads back: the balance it answers and the lots the next reserve may choose from. */
export const RESERVE_FIELDS = { balance: 1, lots: 1, lotsVersion: 1 } as const;

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
    const filter: Record<string, unknown> = {
      _id: call.accountId,
      lotsVersion: seen.version === 0 ? { $exists: false } : seen.version,
      balance: { $gte: call.cost },
      [holdPath(call.requestId)]: { $exists: false },
      [`${lotPath(choice.from)}.remaining`]: { $gte: call.cost },
    };
    for (const id of choice.emptyBefore) filter[`${lotPath(id)}.remaining`] = { $lte: 0 };
    const hold: Hold = { cost: call.cost, tool: call.tool, at: new Date(now), from: { [choice.from]: call.cost } };
    const after = await accounts.findOneAndUpdate(
      filter,
      { $inc: { balance: -call.cost, [`${lotPath(choice.from)}.remaining`]: -call.cost }, $set: { [holdPath(call.requestId)]: hold } },
      { returnDocument: 'after', projection: RESERVE_FIELDS },
    );
    if (!after) return undefined;
    lastLots.remember(after);
    return { ok: true, balance: after.balance };
  }

  return { reserveAsBefore, remember: lastLots.remember };
}
