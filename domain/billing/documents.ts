//! The documents of billing: credit packs, purchases, an account's Stripe customer and
//! auto-recharge, recharges, and what Stripe's events said.
import type { Collection } from 'mongodb';
import type { AuditDraft } from '../account-documents.js';

declare module '../../lib/mongo.js' {
  /** Each collection of this file's documents (lib/mongo.ts names them). */
  interface Collections {
    creditPacks: Collection<CreditPackDoc>;
    purchases: Collection<PurchaseDoc>;
    billingAccounts: Collection<BillingAccountDoc>;
    recharges: Collection<RechargeDoc>;
    stripePayments: Collection<StripePaymentDoc>;
    stripeSignatures: Collection<StripeSignatureDoc>;
  }
}

/** A credit pack the operator sells (`credit_packs`, id chosen by the operator). */
export interface CreditPackDoc {
  _id: string;
  name: string;
  credits: number;
  /** In minor units, `currency` lowercase ISO 4217. */
  price: { amount: number; currency: string };
  /** Days a purchase's credits last from its payment; null: they never lapse. */
  expiresInDays: number | null;
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const PURCHASE_STATUSES = ['pending', 'paid', 'failed', 'refunded', 'partially_refunded', 'disputed'] as const;
export type PurchaseStatus = (typeof PURCHASE_STATUSES)[number];

/**
 * A purchase of a pack through Stripe Checkout (`purchases`, `pur_...`): what was promised when
 * the session was made, so a pack changed later cannot change it, and what Stripe's events made
 * of it. The money itself moves only in the ledger (the grant `checkout:<sessionId>`, its voids).
 */
export interface PurchaseDoc {
  _id: string;
  accountId: string;
  packId: string;
  packName: string;
  credits: number;
  amount: number;
  currency: string;
  expiresInDays: number | null;
  /** The Checkout Session (unique): how its events find the purchase. */
  sessionId: string;
  /** The account's Stripe customer the session was made for. */
  customerId: string;
  /** The customer asked to keep the card for auto-recharge. */
  saveCard: boolean;
  /** Learnt from the session's events: how charge and dispute events find the purchase. */
  paymentIntentId: string | null;
  status: PurchaseStatus;
  /** The grant its credits went in, once paid. */
  grantId: string | null;
  /** Credits taken back by refunds and disputes (now: a dispute won gives its part back). */
  creditsVoided: number;
  /** Minor units refunded so far (Stripe's charge.amount_refunded). */
  amountRefunded: number;
  createdAt: Date;
  paidAt: Date | null;
  receiptUrl: string | null;
  auditDrafts?: AuditDraft[];
}

/** What an account is to Stripe (`billing_accounts`, `_id` the account id): its customer, saved card and auto-recharge. */
export interface BillingAccountDoc {
  _id: string;
  /** Made once per account (domain/billing/customers.ts) and reused. */
  stripeCustomerId?: string;
  /** The card saved at a checkout with saveCard: its id and what the owner is shown of it. */
  paymentMethod?: { id: string; brand: string; last4: string } | null;
  autoRecharge?: AutoRechargeState;
  auditDrafts?: AuditDraft[];
}

/** Auto-recharge's settings and state; written field by field, so any of the state may be absent (read as 0 or null). */
export interface AutoRechargeState {
  enabled: boolean;
  packId: string;
  threshold: number;
  /** Recharges a calendar month (UTC) may start, failed ones included. */
  monthlyLimit: number;
  /** `YYYY-MM` that `count` counts in. */
  month: string;
  count: number;
  consecutiveFailures: number;
  /** The recharge running now (at most one), or null. */
  inFlight: string | null;
  lastRechargeId: string | null;
  /** The last recharge whose failure was counted in `consecutiveFailures` (so a retried step counts it once). */
  lastFailedRechargeId: string | null;
  /** Why it was turned off by the service (three failures in a row), until the owner turns it on again. */
  disabledReason: string | null;
}

/** One automatic recharge (`recharges`, `rch_...`): the pack's promise at its start and its payment intent. */
export interface RechargeDoc {
  _id: string;
  accountId: string;
  packId: string;
  credits: number;
  amount: number;
  currency: string;
  expiresInDays: number | null;
  paymentIntentId: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  /** Why it failed: Stripe's error code (`card_declined`, `authentication_required` ...). */
  failureReason: string | null;
  grantId: string | null;
  createdAt: Date;
  settledAt: Date | null;
}

/**
 * What Stripe's charge and dispute events said of one payment intent (`stripe_payments`, `_id` the
 * intent's id), kept even before the purchase is known: a refund that arrives before its
 * completion is applied once the completion links the two (domain/billing/fulfilment.ts).
 */
export interface StripePaymentDoc {
  _id: string;
  purchaseId?: string;
  /** The charge's amount and the most it was seen refunded (refund events carry the running total). */
  amount?: number;
  amountRefunded?: number;
  receiptUrl?: string;
  /** Dispute id -> its status; a closed status (`won`, `lost`) is never replaced by an open one. */
  disputes?: Record<string, string>;
  updatedAt: Date;
}

/** A `Stripe-Signature` seen (its digest), kept for the signature's tolerance so a replay of it is refused. */
export interface StripeSignatureDoc {
  _id: string;
  at: Date;
}
