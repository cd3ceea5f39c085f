//! Buying a pack: a Stripe Checkout Session (payment mode) for the account's customer, and the
//! pending purchase that records what was promised at that moment. Nothing is granted here: the
//! credits come with Stripe's signed event (fulfilment.ts).
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import type { PurchaseDoc } from './documents.js';
import { newId } from '../../lib/ids.js';
import { ServiceError } from '../../contracts/errors.js';
import type { Logger } from '../../lib/logger.js';
import { auditDraft, createAuditLog, type AuditContext } from '../audit/index.js';
import type { Packs } from './packs.js';
import type { Customers } from './customers.js';
import { stripeFailure, type StripeApi } from './stripe-api.js';

export interface CheckoutDeps {
  db: Db;
  stripe: StripeApi;
  packs: Packs;
  customers: Customers;
  log: Logger;
  /** PUBLIC_BASE_URL: where Stripe sends the customer back. */
  baseUrl: string;
}

/** Where Stripe sends the customer after paying or giving up: the dashboard says which. */
export function returnUrls(baseUrl: string) {
  return {
    success_url: `${baseUrl}/dashboard/billing?checkout=success`,
    cancel_url: `${baseUrl}/dashboard/billing?checkout=cancelled`,
  };
}

export function createCheckout(deps: CheckoutDeps) {
  const { purchases } = collections(deps.db);
  const auditLog = createAuditLog(deps.db);

  /**
   * Opens a Checkout Session for `packId` and records the pending purchase. The account is the
   * session's `client_reference_id` and is in its payment intent's metadata (refund and dispute
   * events carry the charge, not the session); `saveCard` keeps the card for off-session use.
   * The session is made under an idempotency key of the purchase, so a retried request to Stripe
   * opens one session.
   */
  async function checkout(accountId: string, packId: string, saveCard: boolean, audit: AuditContext, now = new Date()) {
    const pack = await deps.packs.active(packId);
    if (!pack) throw new ServiceError('not_found', `There is no credit pack ${packId} for sale.`);
    const purchaseId = newId('pur');
    let session: { id: string; url: string | null };
    let customerId: string;
    try {
      customerId = await deps.customers.ensure(accountId);
      const metadata = { accountId, purchaseId };
      session = await deps.stripe.checkout.sessions.create(
        {
          mode: 'payment',
          customer: customerId,
          client_reference_id: accountId,
          line_items: [
            {
              quantity: 1,
              price_data: { currency: pack.price.currency, unit_amount: pack.price.amount, product_data: { name: pack.name } },
            },
          ],
          metadata,
          payment_intent_data: { metadata, ...(saveCard ? { setup_future_usage: 'off_session' as const } : {}) },
          ...returnUrls(deps.baseUrl),
        },
        { idempotencyKey: `checkout-${purchaseId}` },
      );
    } catch (err) {
      deps.log.warn({ stripe: stripeFailure(err), accountId }, 'Stripe refused or did not answer a checkout');
      throw new ServiceError(
        'upstream_error',
        'The payment provider could not open a checkout; try again shortly.',
        { reason: 'stripe' },
        { cause: err },
      );
    }
    const doc: PurchaseDoc = {
      _id: purchaseId,
      accountId,
      packId: pack._id,
      packName: pack.name,
      credits: pack.credits,
      amount: pack.price.amount,
      currency: pack.price.currency,
      expiresInDays: pack.expiresInDays,
      sessionId: session.id,
      customerId,
      saveCard,
      paymentIntentId: null,
      status: 'pending',
      grantId: null,
      creditsVoided: 0,
      amountRefunded: 0,
      createdAt: now,
      paidAt: null,
      receiptUrl: null,
      // The entry is written with the purchase (domain/audit/log.ts).
      auditDrafts: [
        auditDraft(
          audit,
          accountId,
          'purchase.created',
          { type: 'purchase', id: purchaseId },
          {
            packId: [null, pack._id],
            credits: [null, pack.credits],
            amount: [null, pack.price.amount],
            currency: [null, pack.price.currency],
            expiresInDays: [null, pack.expiresInDays],
          },
          now,
        ),
      ],
    };
    await purchases.insertOne(doc);
    await auditLog.flush('purchase', purchaseId);
    return { sessionId: session.id, url: session.url, purchaseId };
  }

  return { checkout };
}

export type Checkout = ReturnType<typeof createCheckout>;
