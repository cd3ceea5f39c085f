//! Applying Stripe's signed events to purchases, safe to run twice and in any order: a paid session
//! is a grant keyed by the session (granted once however often it is told), a refund or a dispute is
//! recorded against its payment intent and then reconciled: the ledger is brought to what those
//! records call for (the refunded share of the credits voided, all that is left while a dispute is
//! open, a won dispute's part given back), from what is left of that grant only. A refund that
//! arrives before its completion waits in the records and is applied when the completion links them.
import type { Db } from 'mongodb';
import { collections, isDuplicateKey, upsertReturningAfter } from '../../lib/mongo.js';
import type { PurchaseDoc, StripePaymentDoc } from './documents.js';
import type { Logger } from '../../lib/logger.js';
import type { StripeFact, StripeFactOutcome } from '../../contracts/billing-messages.js';
import { grantIdForKey, type Grants, voidedAfter, type Ledger } from '../ledger/index.js';
import { type AuditAction, type AuditDraft, type AuditLog, SERVICE_ACTOR, auditDraft, changesOf, createAuditLog } from '../audit/index.js';
import { isClosedDispute } from './stripe-events.js';
import { paidStatus } from './purchases.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A payment the service granted credits for: a purchase at checkout, or an automatic recharge. */
export interface PaidRecord {
  kind: 'purchase' | 'recharge';
  id: string;
  accountId: string;
  credits: number;
  amount: number;
  /** Null until its credits are granted: nothing to take back before. */
  grantId: string | null;
}

type Fact<K extends StripeFact['kind']> = Extract<StripeFact, { kind: K }>;

/** A dispute id as a field name: Stripe's ids are `du_...`/`dp_...`; anything else is refused. */
const DISPUTE_ID = /^[A-Za-z0-9_]{1,100}$/;

export interface FulfilmentDeps {
  db: Db;
  grants: Grants;
  ledger: Pick<Ledger, 'voidLot' | 'restoreLot' | 'balanceOf'>;
  log: Logger;
  /** Keeps a card for auto-recharge after a paid checkout with saveCard (customers.ts saveCard); absent: none kept. */
  saveCard?: (accountId: string, customerId: string, paymentIntentId: string | null) => Promise<unknown>;
}

/**
 * An event Stripe is told was received (so it is not sent again) that grants nothing: a warning
 * with `fields` says why, for an operator. Answers `outcome`.
 */
export function grantNothing<const O>(log: Logger, fields: Record<string, unknown>, why: string, outcome: O): O {
  log.warn(fields, `${why}: acknowledged, nothing granted`);
  return outcome;
}

/** The service's own audit entry about a purchase (what Stripe said happened to it), to push onto its drafts. */
const purchaseEntry = (p: PurchaseDoc, action: AuditAction, changes: AuditDraft['changes'], now: number) => ({
  auditDrafts: auditDraft(SERVICE_ACTOR, p.accountId, action, { type: 'purchase', id: p._id }, changes, new Date(now)),
});

const paidPurchase = (p: PurchaseDoc): PaidRecord => ({
  kind: 'purchase',
  id: p._id,
  accountId: p.accountId,
  credits: p.credits,
  amount: p.amount,
  grantId: p.grantId,
});

/**
 * Links a purchase and its payment intent both ways, so charge and dispute events (and those that
 * came first) find it. A purchase keeps the first intent it was linked to, and an intent pays for
 * one thing: why not, when the session's intent is another purchase's or a recharge's, or the
 * purchase already has another; null when linked.
 */
async function link(db: Db, purchase: PurchaseDoc, paymentIntentId: string): Promise<string | null> {
  const { purchases, stripePayments, recharges } = collections(db);
  if (purchase.paymentIntentId && purchase.paymentIntentId !== paymentIntentId) return 'the purchase is paid by another intent';
  const payment = await stripePayments.findOne({ _id: paymentIntentId }, { projection: { purchaseId: 1 } });
  if (payment?.purchaseId && payment.purchaseId !== purchase._id) return "the intent is another purchase's";
  if (await recharges.findOne({ paymentIntentId }, { projection: { _id: 1 } })) return "the intent is a recharge's";
  await purchases.updateOne({ _id: purchase._id, paymentIntentId: null }, { $set: { paymentIntentId } });
  const linked = (await purchases.findOne({ _id: purchase._id }, { projection: { paymentIntentId: 1 } }))?.paymentIntentId;
  if (linked !== paymentIntentId) return 'the purchase is paid by another intent';
  try {
    await stripePayments.updateOne(
      { _id: paymentIntentId, $or: [{ purchaseId: { $exists: false } }, { purchaseId: purchase._id }] },
      { $set: { purchaseId: purchase._id, updatedAt: new Date() } },
      { upsert: true },
    );
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    return "the intent is another purchase's"; // linked to another meanwhile: the upsert met its record
  }
  return null;
}

/** What was paid, and its grant brought to what Stripe's records of its payment call for. */
function createReconciler(deps: FulfilmentDeps, auditLog: AuditLog) {
  const { purchases, stripePayments, recharges } = collections(deps.db);

  /** What was paid with this intent: a purchase (by its link or its field) or a recharge. */
  async function paidBy(paymentIntentId: string, payment: StripePaymentDoc | null): Promise<PaidRecord | null> {
    const purchase = payment?.purchaseId
      ? await purchases.findOne({ _id: payment.purchaseId })
      : await purchases.findOne({ paymentIntentId });
    if (purchase) return paidPurchase(purchase);
    const recharge = await recharges.findOne({ paymentIntentId });
    return recharge
      ? {
          kind: 'recharge',
          id: recharge._id,
          accountId: recharge.accountId,
          credits: recharge.credits,
          amount: recharge.amount,
          grantId: recharge.grantId,
        }
      : null;
  }

  /**
   * Brings the grant of what was paid to what Stripe's records of its payment call for: a won
   * dispute's credits back first (a refund may then take its share of them), the refunded share
   * `floor(credits x amount_refunded / amount)` less what refunds took before, then, while a
   * dispute is open or lost, all that is left. Each step is the ledger's guarded update, applied
   * once however many reconciles run. A purchase shows its new status (and the credits the voids
   * will take) before the balance moves, so whoever sees the new balance sees why; once they ran it
   * shows what they came to (a call may have spent some meanwhile).
   */
  async function reconcile(paid: PaidRecord, now: number): Promise<void> {
    if (!paid.grantId) return; // not granted yet: its completion reconciles after granting
    const payment = await paymentOf(paid);
    const disputes = Object.values(payment?.disputes ?? {});
    const disputed = disputes.some((s) => s !== 'won');
    const amount = payment?.amount || paid.amount;
    const refunded = Math.min(payment?.amountRefunded ?? 0, amount);
    const plan = { disputed, refundUpTo: refunded > 0 ? Math.floor((paid.credits * refunded) / amount) : 0 };
    if (paid.kind === 'purchase') await showPurchase(paid, now, plan);
    const target = { accountId: paid.accountId, grantId: paid.grantId, purchaseId: paid.id };
    if (!disputed) await deps.ledger.restoreLot(target, now);
    if (plan.refundUpTo > 0) await deps.ledger.voidLot({ ...target, kind: 'refund', upTo: plan.refundUpTo }, now);
    if (disputed) await deps.ledger.voidLot({ ...target, kind: 'dispute', upTo: Number.POSITIVE_INFINITY }, now);
    if (paid.kind === 'purchase') await showPurchase(paid, now);
  }

  async function paymentOf(paid: PaidRecord): Promise<StripePaymentDoc | null> {
    const purchase = paid.kind === 'purchase' ? await purchases.findOne({ _id: paid.id }, { projection: { paymentIntentId: 1 } }) : null;
    const intent = purchase
      ? purchase.paymentIntentId
      : (await recharges.findOne({ _id: paid.id }, { projection: { paymentIntentId: 1 } }))?.paymentIntentId;
    return intent ? stripePayments.findOne({ _id: intent }) : null;
  }

  /**
   * The purchase's status, credits voided, amount refunded and receipt, from the records and the
   * grant as they are now (with `plan`: the credits its voids will have taken); the change and its
   * audit entry in one update, pinned to what it replaces.
   */
  async function showPurchase(paid: PaidRecord, now: number, plan?: { disputed: boolean; refundUpTo: number }): Promise<void> {
    for (;;) {
      const p = await purchases.findOne({ _id: paid.id });
      if (!p || p.status === 'pending' || p.status === 'failed' || !p.grantId) return;
      const payment = p.paymentIntentId ? await stripePayments.findOne({ _id: p.paymentIntentId }) : null;
      const lot = (await deps.ledger.balanceOf(p.accountId)).lots?.[p.grantId];
      const next = {
        status: paidStatus(payment, p.amount),
        creditsVoided: plan ? voidedAfter(lot, plan, now) : (lot?.voidedByRefund ?? 0) + (lot?.voidedByDispute ?? 0),
        amountRefunded: Math.max(p.amountRefunded, payment?.amountRefunded ?? 0),
        receiptUrl: payment?.receiptUrl ?? p.receiptUrl,
      };
      const changes = changesOf(p as never, next, ['status', 'creditsVoided', 'amountRefunded']);
      if (Object.keys(changes).length === 0 && next.receiptUrl === p.receiptUrl) return;
      const action =
        next.status === 'disputed' && p.status !== 'disputed'
          ? 'purchase.disputed'
          : p.status === 'disputed' && next.status !== 'disputed'
            ? 'purchase.dispute_closed'
            : 'purchase.refunded';
      const audited = Object.keys(changes).length > 0;
      const { matchedCount } = await purchases.updateOne(
        { _id: p._id, status: p.status, creditsVoided: p.creditsVoided, amountRefunded: p.amountRefunded, receiptUrl: p.receiptUrl },
        {
          $set: next,
          ...(audited ? { $push: purchaseEntry(p, action, changes, now) } : {}),
        },
      );
      if (matchedCount === 0) continue;
      if (audited) await auditLog.flush('purchase', p._id);
      return;
    }
  }

  return { paidBy, reconcile };
}

type Reconcile = ReturnType<typeof createReconciler>['reconcile'];

/** Checkout Sessions' events: a paid session's credits granted once, a failed one recorded, a session that is not the purchase's refused. */
function createSessionFulfilment(deps: FulfilmentDeps, auditLog: AuditLog, reconcile: Reconcile) {
  const { purchases } = collections(deps.db);

  async function applySession(fact: Fact<'session'>, now: number): Promise<StripeFactOutcome> {
    const purchase = await purchases.findOne({ sessionId: fact.sessionId });
    if (!purchase) {
      const ids = { eventId: fact.eventId, type: fact.type, sessionId: fact.sessionId };
      return grantNothing(deps.log, ids, 'Stripe event of a Checkout Session the service did not make', { outcome: 'unknown_session' });
    }
    if (fact.clientReferenceId !== null && fact.clientReferenceId !== purchase.accountId) {
      const ids = { eventId: fact.eventId, sessionId: fact.sessionId, purchaseId: purchase._id };
      return grantNothing(deps.log, ids, 'Stripe event names another account than its purchase', { outcome: 'not_ours' });
    }
    const accountId = purchase.accountId;
    const disagreement = fact.paymentIntentId ? await link(deps.db, purchase, fact.paymentIntentId) : null;
    if (disagreement) {
      const ids = {
        eventId: fact.eventId,
        type: fact.type,
        sessionId: fact.sessionId,
        purchaseId: purchase._id,
        paymentIntentId: fact.paymentIntentId,
        storedPaymentIntentId: purchase.paymentIntentId,
        why: disagreement,
      };
      return grantNothing(deps.log, ids, "Stripe event's session and payment intent disagree", { outcome: 'mismatch', accountId });
    }
    if (fact.type === 'checkout.session.async_payment_failed') {
      const failed = await purchases.updateOne(
        { _id: purchase._id, status: 'pending' },
        {
          $set: { status: 'failed' },
          $push: purchaseEntry(purchase, 'purchase.failed', { status: ['pending', 'failed'] }, now),
        },
      );
      if (failed.modifiedCount) await auditLog.flush('purchase', purchase._id);
      return { outcome: 'failed', accountId };
    }
    // A delayed payment method (a bank debit) completes unpaid; its async_payment_succeeded pays it.
    if (fact.type === 'checkout.session.completed' && fact.paymentStatus !== 'paid') return { outcome: 'awaiting_payment', accountId };
    await fulfil(purchase, fact, now);
    return { outcome: 'granted', accountId };
  }

  /**
   * The purchase's credits, granted once (the grant is keyed by the session), lapsing
   * `expiresInDays` after the payment as the purchase promised. It is marked paid first, by the
   * first event that says so, and every event grants from that mark: two events that both pay it
   * (a completion and an async success) agree on the payment's time. Then whatever Stripe said of
   * the payment meanwhile is applied, and a card it was to save is kept.
   */
  async function fulfil(purchase: PurchaseDoc, fact: Fact<'session'>, now: number): Promise<void> {
    const key = `checkout:${purchase.sessionId}`;
    const grantId = grantIdForKey(purchase.accountId, key);
    const paidAt = new Date((fact.created || Math.floor(now / 1000)) * 1000);
    const paid = await purchases.updateOne(
      { _id: purchase._id, status: { $in: ['pending', 'failed'] } },
      {
        $set: { status: 'paid', paidAt, grantId },
        $push: purchaseEntry(purchase, 'purchase.paid', { status: [purchase.status, 'paid'], grantId: [null, grantId] }, now),
      },
    );
    if (paid.modifiedCount) await auditLog.flush('purchase', purchase._id);
    const marked = (await purchases.findOne({ _id: purchase._id }, { projection: { paidAt: 1 } }))?.paidAt ?? paidAt;
    const expiresAt = purchase.expiresInDays ? new Date(new Date(marked).getTime() + purchase.expiresInDays * DAY_MS) : null;
    await deps.grants.grant(
      { accountId: purchase.accountId, amount: purchase.credits, reason: 'purchase', expiresAt, idempotencyKey: key },
      now,
    );
    await reconcile({ ...paidPurchase(purchase), grantId }, now);
    if (purchase.saveCard && deps.saveCard) await deps.saveCard(purchase.accountId, purchase.customerId, fact.paymentIntentId);
  }

  return applySession;
}

export function createFulfilment(deps: FulfilmentDeps) {
  const { stripePayments } = collections(deps.db);
  const auditLog = createAuditLog(deps.db);
  const { paidBy, reconcile } = createReconciler(deps, auditLog);
  const applySession = createSessionFulfilment(deps, auditLog, reconcile);

  /** A charge's amount, refunded total and receipt, recorded (a refund total only ever grows), then reconciled. */
  async function applyCharge(fact: Fact<'charge'>, now: number): Promise<StripeFactOutcome> {
    if (!fact.paymentIntentId) return { outcome: 'ignored' };
    const payment = await upsertReturningAfter(
      stripePayments,
      { _id: fact.paymentIntentId },
      {
        $max: { amountRefunded: fact.amountRefunded },
        $set: { amount: fact.amount, updatedAt: new Date(now), ...(fact.receiptUrl ? { receiptUrl: fact.receiptUrl } : {}) },
      },
    );
    return settleAgainst(fact.paymentIntentId, payment, fact, now);
  }

  /** A dispute's status, recorded (a closed one is never replaced by an open one), then reconciled. */
  async function applyDispute(fact: Fact<'dispute'>, now: number): Promise<StripeFactOutcome> {
    if (!fact.paymentIntentId || !DISPUTE_ID.test(fact.disputeId)) return { outcome: 'ignored' };
    const field = `disputes.${fact.disputeId}`;
    await stripePayments.updateOne({ _id: fact.paymentIntentId }, { $setOnInsert: { updatedAt: new Date(now) } }, { upsert: true });
    const filter = isClosedDispute(fact.status)
      ? { _id: fact.paymentIntentId }
      : { _id: fact.paymentIntentId, [field]: { $nin: ['won', 'lost'] } };
    await stripePayments.updateOne(filter, { $set: { [field]: fact.status, updatedAt: new Date(now) } });
    return settleAgainst(fact.paymentIntentId, await stripePayments.findOne({ _id: fact.paymentIntentId }), fact, now);
  }

  async function settleAgainst(
    paymentIntentId: string,
    payment: StripePaymentDoc | null,
    fact: StripeFact,
    now: number,
  ): Promise<StripeFactOutcome> {
    const paid = await paidBy(paymentIntentId, payment);
    if (!paid) {
      deps.log.info(
        { eventId: fact.eventId, type: fact.type, paymentIntentId },
        'Stripe event of a payment not known yet: recorded, applied once its purchase is',
      );
      return { outcome: 'recorded' };
    }
    await reconcile(paid, now);
    return { outcome: 'applied', accountId: paid.accountId };
  }

  return { applySession, applyCharge, applyDispute, reconcile, paidBy };
}

export type Fulfilment = ReturnType<typeof createFulfilment>;
