//! Starting an automatic recharge: the account's one slot claimed (never two at once, never past
//! the month's limit: one guarded update of the account's billing decides), the recharge recorded
//! with its pack's terms, and its payment asked of Stripe off-session with the saved card (a
//! PaymentIntent under the recharge's idempotency key). Its signed event settles it (recharges.ts).
import type { Db } from 'mongodb';
import { collections, insertIfAbsent } from '../../lib/mongo.js';
import type { RechargeStart } from '../../contracts/billing-messages.js';
import { spendMonth } from '../ledger/index.js';
import type { RechargeDoc } from './documents.js';
import type { Packs } from './packs.js';
import type { RechargeFailure } from './recharge-failure.js';
import type { Rearm } from './recharge-trigger.js';
import { cardError, type StripeApi } from './stripe-api.js';

export interface RechargeStartDeps {
  db: Db;
  /** Absent when payments are off: nothing is started. */
  stripe?: StripeApi;
  packs: Packs;
}

/** The first instant (UTC) of the month after `now`: when a month's limit no longer holds. */
export function nextMonthStart(now: number): Date {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
}

/** Starting a recharge: the account's one slot claimed, the recharge recorded, and its payment asked of Stripe. */
export function createRechargeStart(deps: RechargeStartDeps, rearm: Rearm, fail: RechargeFailure) {
  const { accounts, billingAccounts, recharges } = collections(deps.db);

  /**
   * Claims the account's one recharge slot for `rechargeId` (the workflow's, the same on every
   * retry of this step) and counts it in the month, if auto-recharge is on, no recharge is in
   * flight and the month's limit allows; the claim is the guarded update, so concurrent workflows
   * or retries can never claim twice. Null with why not.
   */
  async function claim(accountId: string, rechargeId: string, monthlyLimit: number, now: number): Promise<string | null> {
    const month = spendMonth(now);
    const free = { _id: accountId, 'autoRecharge.enabled': true, 'autoRecharge.inFlight': null };
    const taken = { 'autoRecharge.inFlight': rechargeId, 'autoRecharge.lastRechargeId': rechargeId };
    const sameMonth = await billingAccounts.updateOne(
      { ...free, 'autoRecharge.month': month, 'autoRecharge.count': { $lt: monthlyLimit } },
      { $set: taken, $inc: { 'autoRecharge.count': 1 } },
    );
    if (sameMonth.modifiedCount === 1) return null;
    const newMonth = await billingAccounts.updateOne(
      { ...free, 'autoRecharge.month': { $ne: month } },
      { $set: { ...taken, 'autoRecharge.month': month, 'autoRecharge.count': 1 } },
    );
    if (newMonth.modifiedCount === 1) return null;
    const state = (await billingAccounts.findOne({ _id: accountId }))?.autoRecharge;
    if (!state?.enabled) return 'disabled';
    if (state.inFlight === rechargeId) return null; // claimed by an earlier run of this step
    if (state.inFlight) return 'in_flight';
    // The month's limit: the latch arms again when the next month starts.
    await accounts.updateOne({ _id: accountId, rechargeBelow: { $exists: true } }, { $set: { rechargeArmsAt: nextMonthStart(now) } });
    return 'monthly_limit';
  }

  /**
   * One recharge for the account, if one is due: claimed, recorded with the pack's terms as they
   * are now, and paid for off-session. Stripe's answer does not settle it (its signed event does),
   * unless Stripe refused the card at once: then it fails here.
   */
  async function begin(accountId: string, rechargeId: string, now = Date.now()): Promise<RechargeStart> {
    // The hand-off arrived (domain/billing/recharge-trigger.ts): nothing is left for the upkeep to resend.
    await accounts.updateOne({ _id: accountId, rechargeDueAt: { $exists: true } }, { $unset: { rechargeDueAt: '' } });
    if (!deps.stripe) return { started: false, why: 'payments_not_configured' };
    let doc = await recharges.findOne({ _id: rechargeId });
    if (!doc) {
      const billing = await billingAccounts.findOne({ _id: accountId });
      const state = billing?.autoRecharge;
      // Claimed by an earlier run of this step that stopped before recording it: record it now.
      const claimedBefore = state?.inFlight === rechargeId;
      if (!claimedBefore) {
        if (!state?.enabled) return { started: false, why: 'disabled' };
        if (!billing?.paymentMethod || !billing.stripeCustomerId) return { started: false, why: 'no_card' };
        const account = await accounts.findOne({ _id: accountId }, { projection: { chargedBalance: 1 } });
        if (!account || account.chargedBalance >= state.threshold) {
          await rearm(accountId);
          return { started: false, why: 'above_threshold' };
        }
        if (!(await deps.packs.active(state.packId))) return { started: false, why: 'pack_unavailable' };
        const refused = await claim(accountId, rechargeId, state.monthlyLimit, now);
        if (refused) return { started: false, why: refused };
      }
      const pack = await deps.packs.get(state!.packId);
      if (!pack) return { started: false, why: 'pack_unavailable' };
      await insertIfAbsent<RechargeDoc>(recharges, {
        _id: rechargeId,
        accountId,
        packId: pack._id,
        credits: pack.credits,
        amount: pack.price.amount,
        currency: pack.price.currency,
        expiresInDays: pack.expiresInDays,
        paymentIntentId: null,
        status: 'pending',
        failureReason: null,
        grantId: null,
        createdAt: new Date(now),
        settledAt: null,
      });
      doc = (await recharges.findOne({ _id: rechargeId }))!;
    }
    if (doc.status !== 'pending') return { started: true, rechargeId, settled: true };
    const billing = (await billingAccounts.findOne({ _id: accountId }))!;
    try {
      const intent = await deps.stripe.paymentIntents.create(
        {
          amount: doc.amount,
          currency: doc.currency,
          customer: billing.stripeCustomerId,
          payment_method: billing.paymentMethod!.id,
          off_session: true,
          confirm: true,
          metadata: { accountId, rechargeId },
          description: `Auto-recharge: ${doc.credits} credits`,
        },
        { idempotencyKey: `recharge-${rechargeId}` },
      );
      await recharges.updateOne({ _id: rechargeId, paymentIntentId: null }, { $set: { paymentIntentId: intent.id } });
      return { started: true, rechargeId, settled: false };
    } catch (err) {
      const card = cardError(err);
      if (!card) throw err; // Stripe away: retried under the same key, so one intent is ever made
      if (card.paymentIntentId)
        await recharges.updateOne({ _id: rechargeId, paymentIntentId: null }, { $set: { paymentIntentId: card.paymentIntentId } });
      await fail(rechargeId, card.code, now);
      return { started: true, rechargeId, settled: true };
    }
  }

  return begin;
}
