//! Automatic recharges: claiming one (never two at once, never past the month's limit, whatever the
//! concurrency: one guarded update of the account's billing decides), paying for it off-session
//! with the saved card (a PaymentIntent under the recharge's idempotency key), and settling it from
//! Stripe's signed events: the credits granted once on `payment_intent.succeeded`, a failure
//! counted, told to the account's webhooks, and, the third in a row, turning auto-recharge off.
import type { Db } from 'mongodb';
import { collections, insertIfAbsent } from '../../lib/mongo.js';
import type { RechargeDoc } from './documents.js';
import { derivedId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { RechargeStart, StripeFact, StripeFactOutcome } from '../../contracts/billing-messages.js';
import { spendMonth, type Grants } from '../ledger/index.js';
import { type AuditLog, SERVICE_ACTOR, auditDraft, createAuditLog } from '../audit/index.js';
import { createEventRecorder, type EventSink } from '../events/index.js';
import { MAX_CONSECUTIVE_FAILURES } from './auto-recharge.js';
import type { Fulfilment } from './fulfilment.js';
import type { Packs } from './packs.js';
import { cardError, type StripeApi } from './stripe-api.js';
import type { Mailer } from '../mail/index.js';
import { billingContacts, rechargeFailedMail } from './mail-texts.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The first instant (UTC) of the month after `now`: when a month's limit no longer holds. */
export function nextMonthStart(now: number): Date {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
}

export interface RechargeDeps {
  db: Db;
  /** Absent when payments are off: nothing is started. */
  stripe?: StripeApi;
  packs: Packs;
  grants: Grants;
  fulfilment: Pick<Fulfilment, 'reconcile'>;
  log: Logger;
  onEvent?: EventSink;
  /** Mails a failed recharge to the account's billing contacts (domain/mail/outbox.ts); none without it. */
  mailer?: Mailer;
  /** PUBLIC_BASE_URL: the mails' links. */
  baseUrl?: string;
}

type IntentFact = Extract<StripeFact, { kind: 'payment_intent' }>;

/** The latch armed again: the next charge below the threshold starts a recharge (if auto-recharge is still on). */
function rearmer(db: Db) {
  const { accounts } = collections(db);
  return (accountId: string) =>
    accounts.updateOne(
      { _id: accountId, rechargeBelow: { $exists: true } },
      { $set: { rechargeArmed: true }, $unset: { rechargeArmsAt: '' } },
    );
}

/**
 * The recharge this intent pays for: found by the payment intent the service stored for it, else
 * (Stripe's answer to the create was lost) by the `rechargeId` of its metadata, whose stored intent
 * is then this one. Metadata may be missing (an intent edited in Stripe's dashboard, an event
 * rebuilt by a tool): the stored intent decides. When the two name different things, or the intent
 * is a checkout's, nothing is granted and the disagreement is logged for an operator.
 */
async function recharged(
  deps: RechargeDeps,
  fact: IntentFact,
): Promise<{ doc: RechargeDoc } | { outcome: 'ignored' | 'not_ours' | 'mismatch' }> {
  const { purchases, recharges } = collections(deps.db);
  const mismatch = (storedRechargeId: string | null, why: string) => {
    deps.log.warn(
      {
        eventId: fact.eventId,
        type: fact.type,
        paymentIntentId: fact.paymentIntentId,
        storedRechargeId,
        metadataRechargeId: fact.rechargeId,
        metadataAccountId: fact.accountId,
        why,
      },
      "Stripe event's payment intent and metadata disagree: acknowledged, nothing granted",
    );
    return { outcome: 'mismatch' as const };
  };
  const stored = await recharges.findOne({ paymentIntentId: fact.paymentIntentId });
  if (stored) {
    if (fact.rechargeId && fact.rechargeId !== stored._id) return mismatch(stored._id, 'the metadata names another recharge');
    if (fact.accountId && fact.accountId !== stored.accountId) return mismatch(stored._id, 'the metadata names another account');
    return { doc: stored };
  }
  // Not a recharge's intent: a checkout's is settled by its session's events.
  if (!fact.rechargeId) return { outcome: 'ignored' };
  const named = await recharges.findOne({ _id: fact.rechargeId });
  if (!named) {
    deps.log.warn(
      { eventId: fact.eventId, type: fact.type, paymentIntentId: fact.paymentIntentId },
      'Stripe event of a recharge the service did not make: acknowledged, nothing granted',
    );
    return { outcome: 'not_ours' };
  }
  if (fact.accountId && fact.accountId !== named.accountId) return mismatch(named._id, 'the metadata names another account');
  if (named.paymentIntentId) return mismatch(named._id, 'the recharge the metadata names is paid by another intent');
  if (await purchases.findOne({ paymentIntentId: fact.paymentIntentId }, { projection: { _id: 1 } }))
    return mismatch(null, "the intent is a checkout's");
  // Stripe's answer to the create was lost: the signed event says which intent it was.
  await recharges.updateOne({ _id: named._id, paymentIntentId: null }, { $set: { paymentIntentId: fact.paymentIntentId } });
  const linked = await recharges.findOne({ _id: named._id });
  if (linked?.paymentIntentId !== fact.paymentIntentId)
    return mismatch(named._id, 'the recharge the metadata names is paid by another intent');
  return { doc: linked };
}

/** A failed recharge settled: recorded, counted, told to the account's webhooks and mailed to its billing contacts. */
function createRechargeFailure(deps: RechargeDeps, auditLog: AuditLog, rearm: Rearm) {
  const { accounts, billingAccounts, recharges } = collections(deps.db);
  const record = createEventRecorder(deps.db, deps.onEvent);

  /**
   * A failed recharge: recorded once (a success already recorded wins), counted once in the failures
   * in a row (keyed by the recharge), its slot freed, `credits.recharge_failed` fired (its id derived
   * from the recharge, so a retried step fires it once); the third failure in a row turns
   * auto-recharge off and says so, else the latch arms again.
   */
  async function fail(rechargeId: string, reason: string, now: number): Promise<void> {
    await recharges.updateOne(
      { _id: rechargeId, status: 'pending' },
      { $set: { status: 'failed', failureReason: reason, settledAt: new Date(now) } },
    );
    const doc = await recharges.findOne({ _id: rechargeId });
    if (!doc || doc.status !== 'failed') return;
    const { accountId } = doc;
    await billingAccounts.updateOne(
      { _id: accountId, 'autoRecharge.lastFailedRechargeId': { $ne: rechargeId } },
      {
        $inc: { 'autoRecharge.consecutiveFailures': 1 },
        $set: { 'autoRecharge.lastFailedRechargeId': rechargeId },
        $push: {
          auditDrafts: auditDraft(
            SERVICE_ACTOR,
            accountId,
            'recharge.failed',
            { type: 'recharge', id: rechargeId },
            { status: ['pending', 'failed'], reason: [null, doc.failureReason] },
            new Date(now),
          ),
        },
      },
    );
    await billingAccounts.updateOne({ _id: accountId, 'autoRecharge.inFlight': rechargeId }, { $set: { 'autoRecharge.inFlight': null } });
    const state = (await billingAccounts.findOne({ _id: accountId }))?.autoRecharge;
    const failures = state?.consecutiveFailures ?? 1;
    if (state?.enabled && failures >= MAX_CONSECUTIVE_FAILURES) {
      await billingAccounts.updateOne(
        { _id: accountId, 'autoRecharge.enabled': true },
        {
          $set: {
            'autoRecharge.enabled': false,
            'autoRecharge.disabledReason': `${failures} recharges failed in a row (the last: ${doc.failureReason})`,
          },
          $push: {
            auditDrafts: auditDraft(
              SERVICE_ACTOR,
              accountId,
              'auto_recharge.disabled',
              { type: 'auto_recharge', id: accountId },
              { enabled: [true, false] },
              new Date(now),
            ),
          },
        },
      );
      await accounts.updateOne(
        { _id: accountId },
        { $unset: { rechargeBelow: '', rechargeArmed: '', rechargeArmsAt: '', rechargeDueAt: '' } },
      );
    } else if (state?.enabled) {
      await rearm(accountId);
    }
    await auditLog.flushBilling(accountId);
    const enabled = (await billingAccounts.findOne({ _id: accountId }))?.autoRecharge?.enabled ?? false;
    const data = { reason: doc.failureReason ?? reason, consecutiveFailures: failures, autoRechargeEnabled: enabled };
    await record({
      id: derivedId('evt', `recharge_failed:${rechargeId}`),
      accountId,
      event: 'credits.recharge_failed',
      createdAt: new Date(now),
      data,
    });
    await mailFailure(doc, data);
  }

  /**
   * The failure mailed to each billing contact, handed to the outbox under a key of the recharge and
   * the contact: a retried step mails nobody twice.
   */
  async function mailFailure(
    doc: RechargeDoc,
    data: { reason: string; consecutiveFailures: number; autoRechargeEnabled: boolean },
  ): Promise<void> {
    if (!deps.mailer || !deps.baseUrl) return;
    const mail = rechargeFailedMail(deps.baseUrl, {
      reason: data.reason,
      credits: doc.credits,
      consecutiveFailures: data.consecutiveFailures,
      stillOn: data.autoRechargeEnabled,
    });
    for (const contact of await billingContacts(deps.db, doc.accountId)) {
      await deps.mailer.send({ to: contact.email, ...mail }, { idempotencyKey: `recharge_failed:${doc._id}:${contact.id}` });
    }
  }

  return fail;
}

type Rearm = ReturnType<typeof rearmer>;
type Fail = ReturnType<typeof createRechargeFailure>;

/** Starting a recharge: the account's one slot claimed, the recharge recorded, and its payment asked of Stripe. */
function createRechargeStart(deps: RechargeDeps, rearm: Rearm, fail: Fail) {
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

export function createRecharges(deps: RechargeDeps) {
  const { billingAccounts, recharges } = collections(deps.db);
  const auditLog = createAuditLog(deps.db);
  const rearm = rearmer(deps.db);
  const fail = createRechargeFailure(deps, auditLog, rearm);
  const begin = createRechargeStart(deps, rearm, fail);

  /** `payment_intent.succeeded` / `payment_failed` of a recharge's intent. Other intents (a checkout's) are the sessions' business. */
  async function applyIntent(fact: IntentFact, now = Date.now()): Promise<StripeFactOutcome> {
    const found = await recharged(deps, fact);
    if (!('doc' in found)) return found;
    const { doc } = found;
    if (fact.type === 'payment_intent.payment_failed') {
      await fail(doc._id, fact.failureCode ?? 'payment_failed', now);
      return { outcome: 'failed', accountId: doc.accountId, rechargeId: doc._id };
    }
    await succeed(doc, fact, now);
    return { outcome: 'granted', accountId: doc.accountId, rechargeId: doc._id };
  }

  /**
   * The recharge's credits, granted once (keyed by the recharge), lapsing as its pack promised; a
   * success also after a failure was recorded (the money was taken). The failures in a row end.
   */
  async function succeed(doc: RechargeDoc, fact: IntentFact, now: number): Promise<void> {
    const paidAt = (fact.created || Math.floor(now / 1000)) * 1000;
    const expiresAt = doc.expiresInDays ? new Date(paidAt + doc.expiresInDays * DAY_MS) : null;
    const { grant } = await deps.grants.grant(
      { accountId: doc.accountId, amount: doc.credits, reason: 'recharge', expiresAt, idempotencyKey: `recharge:${doc._id}` },
      now,
    );
    await recharges.updateOne(
      { _id: doc._id, status: { $ne: 'succeeded' } },
      { $set: { status: 'succeeded', grantId: grant._id, settledAt: new Date(now) } },
    );
    const ended = await billingAccounts.updateOne(
      { _id: doc.accountId, 'autoRecharge.inFlight': doc._id },
      {
        $set: { 'autoRecharge.inFlight': null, 'autoRecharge.consecutiveFailures': 0 },
        $push: {
          auditDrafts: auditDraft(
            SERVICE_ACTOR,
            doc.accountId,
            'recharge.succeeded',
            { type: 'recharge', id: doc._id },
            { status: ['pending', 'succeeded'], credits: [null, doc.credits] },
            new Date(now),
          ),
        },
      },
    );
    if (ended.modifiedCount) await auditLog.flushBilling(doc.accountId);
    else await billingAccounts.updateOne({ _id: doc.accountId }, { $set: { 'autoRecharge.consecutiveFailures': 0 } });
    await rearm(doc.accountId);
    // A refund or dispute of it that arrived first is applied now.
    await deps.fulfilment.reconcile(
      { kind: 'recharge', id: doc._id, accountId: doc.accountId, credits: doc.credits, amount: doc.amount, grantId: grant._id },
      now,
    );
  }

  /** A recharge whose event never came (within a day): its slot is freed. It stays pending: a late success still grants it. */
  async function release(accountId: string, rechargeId: string): Promise<void> {
    await billingAccounts.updateOne({ _id: accountId, 'autoRecharge.inFlight': rechargeId }, { $set: { 'autoRecharge.inFlight': null } });
    await rearm(accountId);
  }

  /** Whether the recharge has been settled by its event (the workflow's check when no signal came). */
  const settled = async (rechargeId: string) =>
    (await recharges.findOne({ _id: rechargeId }, { projection: { status: 1 } }))?.status !== 'pending';

  return { begin, applyIntent, release, settled };
}

export type Recharges = ReturnType<typeof createRecharges>;
