//! Automatic recharges: started by `recharge-start.ts` (the slot claimed, the payment asked of
//! Stripe) and settled here from Stripe's signed events: the credits granted once on
//! `payment_intent.succeeded`, a failure handed to `recharge-failure.ts` (counted, told to the
//! account's webhooks, and, the third in a row, turning auto-recharge off).
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import type { Logger } from '../../lib/logger.js';
import type { StripeFact, StripeFactOutcome } from '../../contracts/billing-messages.js';
import type { Grants } from '../ledger/index.js';
import { SERVICE_ACTOR, auditDraft, createAuditLog } from '../audit/index.js';
import type { EventSink } from '../events/index.js';
import type { Mailer } from '../mail/index.js';
import type { RechargeDoc } from './documents.js';
import { type Fulfilment, grantNothing } from './fulfilment.js';
import type { Packs } from './packs.js';
import { createRechargeFailure } from './recharge-failure.js';
import { createRechargeStart } from './recharge-start.js';
import { rearmer } from './recharge-trigger.js';
import type { StripeApi } from './stripe-api.js';

const DAY_MS = 24 * 60 * 60 * 1000;

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
  const ids = { eventId: fact.eventId, type: fact.type, paymentIntentId: fact.paymentIntentId };
  const mismatch = (storedRechargeId: string | null, why: string) => {
    const fields = { ...ids, storedRechargeId, metadataRechargeId: fact.rechargeId, metadataAccountId: fact.accountId, why };
    return grantNothing(deps.log, fields, "Stripe event's payment intent and metadata disagree", { outcome: 'mismatch' });
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
  if (!named) return grantNothing(deps.log, ids, 'Stripe event of a recharge the service did not make', { outcome: 'not_ours' });
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
    if (ended.modifiedCount) await auditLog.flush('billing', doc.accountId);
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
