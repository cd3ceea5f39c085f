//! Stripe's events as the tests send them: stripe-mock sends none, so a test builds the event Stripe
//! would send, signs it as Stripe signs it (the `stripe` package's own test-header helper, with the
//! stack's STRIPE_WEBHOOK_SECRET) and posts it to the service's webhook.
import { randomBytes } from 'node:crypto';
import { Stripe } from '../../domain/billing/stripe-api.js';
import type { Client } from '@temporalio/client';
import { adminToken, request, type Answer } from './api.js';

export const WEBHOOK_PATH = '/api/v1/billing/stripe-webhook';

export function stripeWebhookSecret(): string {
  const secret = process.env.STRIPE_WEBHOOK_SECRET;
  if (!secret) throw new Error('STRIPE_WEBHOOK_SECRET is not set: run the billing tests through `npm test`, whose stack runs stripe-mock');
  return secret;
}

const rand = (n = 14) => randomBytes(n).toString('base64url').replace(/[-_]/g, 'x');
export const stripeId = (prefix: string) => `${prefix}_test${rand()}`;

export interface StripeEvent {
  id: string;
  object: 'event';
  type: string;
  created: number;
  livemode: false;
  data: { object: Record<string, unknown> };
}

/** An event of `type` about `object`, with a fresh id unless given. */
export function stripeEvent(type: string, object: Record<string, unknown>, id = stripeId('evt')): StripeEvent {
  return { id, object: 'event', type, created: Math.floor(Date.now() / 1000), livemode: false, data: { object } };
}

/**
 * Signs the body as Stripe does: `t=<timestamp>,v1=<HMAC>`. Stripe signs every delivery afresh, so
 * a redelivery is the same body with another timestamp (`secondsAgo` sets it apart).
 */
export function sign(body: string, options: { secondsAgo?: number; secret?: string } = {}): string {
  const timestamp = Math.floor(Date.now() / 1000) - (options.secondsAgo ?? 0);
  return Stripe.webhooks.generateTestHeaderString({ payload: body, secret: options.secret ?? stripeWebhookSecret(), timestamp });
}

/** Posts the event signed (or with the header given), as Stripe would deliver it. */
export function deliver(
  event: StripeEvent,
  options: { secondsAgo?: number; secret?: string; header?: string | null } = {},
): Promise<Answer> {
  const body = JSON.stringify(event);
  const header = options.header === undefined ? sign(body, options) : options.header;
  return request('POST', WEBHOOK_PATH, {
    rawBody: body,
    headers: { 'content-type': 'application/json', ...(header ? { 'stripe-signature': header } : {}) },
  });
}

/** A Checkout Session as its events carry it (`customer_details` included: the service must not keep them). */
export function session(fields: {
  id: string;
  accountId: string;
  paymentIntentId: string;
  customer?: string;
  paymentStatus?: 'paid' | 'unpaid';
}) {
  return {
    id: fields.id,
    object: 'checkout.session',
    mode: 'payment',
    status: 'complete',
    payment_status: fields.paymentStatus ?? 'paid',
    client_reference_id: fields.accountId,
    customer: fields.customer ?? stripeId('cus'),
    payment_intent: fields.paymentIntentId,
    amount_total: 1500,
    currency: 'usd',
    metadata: { accountId: fields.accountId },
    customer_details: { email: 'buyer-secret@example.test', name: 'Ada Buyer', address: { line1: '1 Private Road', country: 'GB' } },
  };
}

export function charge(fields: { paymentIntentId: string; amount: number; refunded?: number }) {
  return {
    id: stripeId('ch'),
    object: 'charge',
    payment_intent: fields.paymentIntentId,
    amount: fields.amount,
    amount_refunded: fields.refunded ?? 0,
    refunded: (fields.refunded ?? 0) >= fields.amount,
    receipt_url: `https://pay.stripe.com/receipts/${rand()}`,
    status: 'succeeded',
    billing_details: { email: 'buyer-secret@example.test' },
  };
}

export function dispute(fields: { id: string; paymentIntentId: string; status: string; amount: number }) {
  return {
    id: fields.id,
    object: 'dispute',
    payment_intent: fields.paymentIntentId,
    charge: stripeId('ch'),
    amount: fields.amount,
    status: fields.status,
    reason: 'fraudulent',
  };
}

/** A PaymentIntent; `accountId` and `rechargeId` are its metadata, each left out when not given (an intent edited in Stripe's dashboard). */
export function paymentIntent(fields: { id: string; accountId?: string; rechargeId?: string; failureCode?: string }) {
  return {
    id: fields.id,
    object: 'payment_intent',
    amount: 1500,
    currency: 'usd',
    status: fields.failureCode ? 'requires_payment_method' : 'succeeded',
    metadata: {
      ...(fields.accountId ? { accountId: fields.accountId } : {}),
      ...(fields.rechargeId ? { rechargeId: fields.rechargeId } : {}),
    },
    last_payment_error: fields.failureCode ? { code: fields.failureCode, type: 'card_error' } : null,
  };
}

/** Polls `check` until it returns a value (not undefined), for up to `timeoutMs`: fulfilment runs in a workflow, after the 200. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs / 1000} s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Waits for the workflow Stripe's event `eventId` started, and answers what applying it did. */
export async function applied(client: Client, eventId: string): Promise<{ outcome: string; accountId?: string }> {
  const handle = client.workflow.getHandle(`stripe-event-${eventId}`);
  return handle.result();
}

/** Puts a credit pack through the operator API (ids unique per test file: packs are shared by the stack). */
export async function putPack(
  id: string,
  fields: { name?: string; credits: number; amount: number; currency?: string; expiresInDays?: number | null; active?: boolean },
) {
  const res = await request('PUT', `/api/v1/admin/credit-packs/${id}`, {
    token: adminToken(),
    body: {
      name: fields.name ?? `Pack ${id}`,
      credits: fields.credits,
      price: { amount: fields.amount, currency: fields.currency ?? 'usd' },
      expiresInDays: fields.expiresInDays ?? null,
      active: fields.active ?? true,
    },
  });
  if (res.status !== 200) throw new Error(`could not put pack ${id}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Opens a checkout of `packId` for the account (201 expected). */
export async function checkout(
  ownerToken: string,
  packId: string,
  saveCard = false,
): Promise<{ sessionId: string; url: string; purchaseId: string }> {
  const res = await request('POST', '/api/v1/account/checkout', { token: ownerToken, body: { packId, saveCard } });
  if (res.status !== 201) throw new Error(`checkout failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
