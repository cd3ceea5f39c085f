//! Keeping an account's lots in step with time: an account from before grants were records gets
//! its balance as one lot, and a lot past its expiry lapses (with the balance events that follow)
//! before anything spends from it.
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import type { AccountDoc, LedgerEntry, Lot } from '../account-documents.js';
import { lotPath, readAccount, welcomeGrantId } from './account-fields.js';
import { BALANCE_FIELDS, type BalanceEvents } from './balance-alerts.js';
import { dueLots } from './lots.js';

export function createLotUpkeep(db: Db, events: BalanceEvents) {
  const { accounts } = collections(db);

  /**
   * An account opened before grants were records holds its credits as one never-expiring lot,
   * recorded under the welcome grant's id. Pinned to the balance read, so no credit is missed.
   */
  async function adoptBalance(doc: AccountDoc): Promise<void> {
    const lots: Record<string, Lot> = doc.balance > 0 ? { [welcomeGrantId(doc._id)]: { remaining: doc.balance, expiresAt: null } } : {};
    await accounts.updateOne(
      { _id: doc._id, lots: { $exists: false }, balance: doc.balance },
      { $set: { lots }, $inc: { lotsVersion: 1 } },
    );
  }

  /**
   * The account with its lots in place and none past its expiry: lots that are due are expired
   * first, so a reserve never spends credits that have lapsed, whether or not the sweep got there.
   */
  async function current(accountId: string, now: number): Promise<AccountDoc & { lots: Record<string, Lot> }> {
    for (;;) {
      const doc = await readAccount(accounts, accountId);
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
      const doc = await readAccount(accounts, accountId);
      const lot = doc.lots?.[grantId];
      if (!lot || lot.expiredAt || lot.expiresAt == null || new Date(lot.expiresAt).getTime() > now) return 0;
      const left = lot.remaining;
      const entry: LedgerEntry = {
        _id: `exp_${grantId}`,
        accountId,
        tool: null,
        credits: left,
        outcome: 'expired',
        grantId,
        at: new Date(lot.expiresAt),
      };
      const after = await accounts.findOneAndUpdate(
        { _id: accountId, [`${lotPath(grantId)}.remaining`]: left, [`${lotPath(grantId)}.expiredAt`]: { $exists: false } },
        {
          $set: { [`${lotPath(grantId)}.remaining`]: 0, [`${lotPath(grantId)}.expiredAt`]: new Date(now) },
          $inc: { balance: -left, chargedBalance: -left, lotsVersion: 1 },
          ...(left > 0 ? { $push: { entries: entry } } : {}),
        },
        { returnDocument: 'after', projection: BALANCE_FIELDS },
      );
      if (after) {
        await events.afterDebit(accountId, after);
        return left;
      }
    }
  }

  return { adoptBalance, current, expireLot };
}

export type LotUpkeep = ReturnType<typeof createLotUpkeep>;
