//! Ending a call's hold: a charge, or a refund to the grants the credits came from. The call's
//! usage-ledger entry is written first and is the decision, so a retry completes it, never the
//! opposite one.
import type { Db } from 'mongodb';
import { collections, upsertReturningAfter } from '../../lib/mongo.js';
import type { AccountDoc, Hold, LedgerEntry } from '../account-documents.js';
import { holdPath, keySpendPath, lotPath, readAccount, welcomeGrantId } from './account-fields.js';
import { BALANCE_FIELDS, rechargeDue, type BalanceEvents } from './balance-alerts.js';
import type { LotUpkeep } from './lot-upkeep.js';
import type { CallRef, CommitResult } from '../../contracts/call.js';

/** `onRechargeDue`: told when a charge's own update says the account's auto-recharge is due (ledger.ts RechargeSink). */
export function createSettlement(db: Db, events: BalanceEvents, upkeep: LotUpkeep, onRechargeDue?: (accountId: string) => void) {
  const { accounts, ledger } = collections(db);

  /**
   * Ends a hold as `wanted`, unless the call's ledger entry already says otherwise. The entry is
   * written first and is the decision: the account update after it is guarded by the hold, so
   * an attempt retried after a crash between the two (or the sweeper, for a call terminated
   * there) completes that same decision, never the opposite one. Deciding by the account update
   * instead would leave "hold gone, no entry" ambiguous between a charge and a refund.
   */
  async function settle(call: CallRef, wanted: 'charged' | 'refunded', now: number): Promise<CommitResult> {
    const entry = await upsertReturningAfter(
      ledger,
      { _id: call.requestId },
      {
        $setOnInsert: {
          accountId: call.accountId,
          tool: call.tool,
          credits: wanted === 'charged' ? call.cost : 0,
          outcome: wanted,
          at: new Date(now),
          ...(call.keyId ? { keyId: call.keyId } : {}),
          ...(call.via ? { via: call.via } : {}),
        },
      },
    );
    const outcome = entry.outcome;
    const account = outcome === 'charged' ? await charge(call, now) : await giveBack(call, now);
    return {
      outcome: outcome === 'charged' ? 'charged' : 'refunded',
      balance: account.balance,
      charged: outcome === 'charged' ? call.cost : 0,
    };
  }

  /** The hold becomes a charge: the credits already left the grants at reserve. One write. */
  async function charge(call: CallRef, now: number): Promise<Pick<AccountDoc, 'balance'>> {
    const after = await accounts.findOneAndUpdate(
      { _id: call.accountId, [holdPath(call.requestId)]: { $exists: true } },
      { $unset: { [holdPath(call.requestId)]: '' }, $inc: { chargedBalance: -call.cost } },
      { returnDocument: 'after', projection: BALANCE_FIELDS },
    );
    // The hold is already gone when this is a retry of a step that got through: read it once.
    const account = after ?? (await readAccount(accounts, call.accountId));
    // Auto-recharge is decided on what the update answered, and handed on without waiting: a
    // commit that crosses no threshold reads nothing more for it, and none waits for a recharge.
    if (onRechargeDue && rechargeDue(account, now)) onRechargeDue(call.accountId);
    // Most commits cross no threshold and leave no event behind: those end here, in two writes.
    await events.afterDebit(call.accountId, account);
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
      const doc = await readAccount(accounts, call.accountId);
      const hold: Hold | undefined = doc.holds?.[call.requestId];
      if (!hold) {
        if (doc.outbox?.length || doc.entries?.length) await events.flushOutbox(call.accountId);
        return doc;
      }
      if (!doc.lots) {
        await upkeep.adoptBalance(doc);
        continue;
      }
      // A hold from before grants were records goes back to the never-expiring opening lot.
      const from = hold.from ?? { [welcomeGrantId(call.accountId)]: hold.cost };
      const filter: Record<string, unknown> = { _id: call.accountId, [holdPath(call.requestId)]: { $exists: true } };
      const inc: Record<string, number> = { balance: 0, chargedBalance: 0 };
      // The key's month gets the credits back, whatever becomes of them in the grants.
      if (hold.keyId && hold.month) inc[keySpendPath(hold.keyId, hold.month)] = -hold.cost;
      const lapsed: LedgerEntry[] = [];
      for (const [grantId, n] of Object.entries(from)) {
        const lot = doc.lots[grantId];
        if (!lot && !hold.from) {
          filter[lotPath(grantId)] = { $exists: false }; // $inc creates it: no expiry
          inc[`${lotPath(grantId)}.remaining`] = n;
          inc.balance! += n;
          inc.lotsVersion = 1;
        } else if (lot && !lot.expiredAt) {
          filter[`${lotPath(grantId)}.expiredAt`] = { $exists: false };
          inc[`${lotPath(grantId)}.remaining`] = n;
          inc.balance! += n;
        } else {
          filter[`${lotPath(grantId)}.expiredAt`] = { $exists: true };
          inc.chargedBalance! -= n;
          lapsed.push({
            _id: `exp_${grantId}_${call.requestId}`,
            accountId: call.accountId,
            tool: call.tool,
            credits: n,
            outcome: 'expired',
            grantId,
            at: new Date(now),
          });
        }
      }
      const after = await accounts.findOneAndUpdate(
        filter,
        { $unset: { [holdPath(call.requestId)]: '' }, $inc: inc, ...(lapsed.length ? { $push: { entries: { $each: lapsed } } } : {}) },
        { returnDocument: 'after', projection: BALANCE_FIELDS },
      );
      if (after) {
        if (lapsed.length) await events.afterDebit(call.accountId, after);
        else if (after.outbox?.length || after.entries?.length) await events.flushOutbox(call.accountId);
        return after;
      }
    }
  }

  return { settle };
}
