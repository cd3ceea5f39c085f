//! The OpenAPI operations of credit packs, checkout, purchases and automatic recharge (`api/routes/billing.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { PURCHASES_DEFAULT_LIMIT, PURCHASES_MAX_LIMIT } from './billing.js';
import { AutoRechargeBody, CheckoutBody, PutCreditPackBody } from '../bodies/billing.js';
import { json } from '../docs/openapi-parts.js';
import { ref } from '../docs/schema-parts.js';
import {
  operation,
  owner,
  admin,
  open,
  plain,
  withRateLimit,
  example,
  OWNER_CODES,
  ADMIN_CODES,
  BODY_CODES,
  type RouteOperation,
} from '../docs/operations.js';
import { PACK_ID_PATTERN } from '../../domain/billing/index.js';

const PACK_EXAMPLE = { name: 'Starter: 1,000 credits', credits: 1000, price: { amount: 1500, currency: 'usd' }, expiresInDays: 365 };

/** The operations these routers serve, as the OpenAPI document lists them. */
export function billingOperations(): RouteOperation[] {
  const packId = {
    name: 'id',
    in: 'path',
    required: true,
    description: "The pack's id (lowercase letters, digits, `-`, `_`).",
    schema: { type: 'string', pattern: PACK_ID_PATTERN },
    example: 'starter',
  };
  return [
    operation('get', '/api/v1/account/credit-packs', {
      tag: 'billing',
      operationId: 'listCreditPacks',
      summary: 'List credit packs for sale',
      ...owner(),
      description: 'The packs the operator sells, cheapest first. Listed also while the service takes no payments.',
      ok: withRateLimit('The packs.', json(ref('CreditPackList'))),
      codes: OWNER_CODES,
    }),
    operation('post', '/api/v1/account/checkout', {
      tag: 'billing',
      operationId: 'checkout',
      summary: 'Buy a credit pack',
      ...owner(),
      description:
        'Opens a Stripe Checkout Session for the pack and records a pending purchase with its credits, price and expiry as they are now (a pack changed later does not change it). ' +
        "Send the customer to `url`; the credits are granted when Stripe's signed event says the payment succeeded, once. `saveCard` keeps the card for automatic recharges. " +
        '404 for a pack that is not for sale; 409 `payments_not_configured` while the operator has not configured Stripe.',
      requestBody: { required: true, content: json(CheckoutBody, example({ packId: 'starter', saveCard: true })) },
      ok: withRateLimit('The session to send the customer to.', json(ref('CheckoutSession')), '201'),
      codes: [...OWNER_CODES, ...BODY_CODES, 'not_found', 'payments_not_configured', 'upstream_error'],
    }),
    operation('get', '/api/v1/account/purchases', {
      tag: 'billing',
      operationId: 'listPurchases',
      summary: 'List purchases',
      ...owner(),
      description:
        'Every purchase, newest first: pending until paid, then paid, refunded in part or in full, or disputed, with the credits taken back (never more than was left unspent) and the receipt. Page with `cursor`.',
      parameters: [
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, maximum: PURCHASES_MAX_LIMIT, default: PURCHASES_DEFAULT_LIMIT },
        },
        { name: 'cursor', in: 'query', required: false, description: '`nextCursor` of the previous page.', schema: { type: 'string' } },
      ],
      ok: withRateLimit('A page of purchases.', json(ref('PurchasePage'))),
      codes: [...OWNER_CODES, 'validation_failed'],
    }),
    operation('get', '/api/v1/account/auto-recharge', {
      tag: 'billing',
      operationId: 'getAutoRecharge',
      summary: 'Get auto-recharge',
      ...owner(),
      ok: withRateLimit('The settings and how they stand.', json(ref('AutoRecharge'))),
      codes: OWNER_CODES,
    }),
    operation('put', '/api/v1/account/auto-recharge', {
      tag: 'billing',
      operationId: 'setAutoRecharge',
      summary: 'Set auto-recharge',
      ...owner(),
      description:
        'When a charged call takes the balance below `threshold`, one recharge buys `packId` with the card saved at checkout, off-session, at most `monthlyLimit` times a calendar month (UTC), never two at once; calls never wait for it. ' +
        "Its credits arrive with Stripe's event. A failure fires `credits.recharge_failed`; three in a row turn auto-recharge off. Turning it on needs a saved card (400 naming `/enabled`).",
      requestBody: {
        required: true,
        content: json(AutoRechargeBody, example({ enabled: true, packId: 'starter', threshold: 200, monthlyLimit: 4 })),
      },
      ok: withRateLimit('The settings and how they stand.', json(ref('AutoRecharge'))),
      codes: [...OWNER_CODES, ...BODY_CODES, 'payments_not_configured'],
    }),
    operation('get', '/api/v1/admin/credit-packs', {
      tag: 'operator',
      operationId: 'listCreditPacksAsOperator',
      summary: 'List credit packs',
      ...admin(),
      description: 'Every pack, withdrawn ones included, cheapest first.',
      ok: plain('The packs.', json(ref('CreditPackList'))),
      codes: ADMIN_CODES,
    }),
    operation('put', '/api/v1/admin/credit-packs/{id}', {
      tag: 'operator',
      operationId: 'putCreditPack',
      summary: 'Create or change a credit pack',
      ...admin(),
      description:
        'Creates the pack `id`, or replaces what it says. Purchases already made keep the terms they were made with. `active: false` withdraws it from sale.',
      parameters: [packId],
      requestBody: { required: true, content: json(PutCreditPackBody, example(PACK_EXAMPLE)) },
      ok: plain('The pack.', json(ref('CreditPack'))),
      codes: [...ADMIN_CODES, ...BODY_CODES],
    }),
    operation('post', '/api/v1/billing/stripe-webhook', {
      tag: 'billing',
      operationId: 'stripeWebhook',
      summary: "Stripe's events",
      ...open(),
      description:
        "Where Stripe posts its events (the operator's Stripe endpoint, or the Stripe CLI's `stripe listen --forward-to`). The `Stripe-Signature` is verified on the raw body with STRIPE_WEBHOOK_SECRET (300 s tolerance); " +
        'the event is then handed to its own workflow, keyed by its id, before the 200: a redelivery does nothing twice, a crash loses nothing. Events of sessions the service did not make are acknowledged and change nothing.',
      parameters: [
        {
          name: 'Stripe-Signature',
          in: 'header',
          required: true,
          description: '`t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body">>`, as Stripe sends it.',
          schema: { type: 'string' },
        },
      ],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object', description: "One of Stripe's Event objects." } } },
      },
      ok: plain('Recorded.', json(ref('StripeWebhookReceived'))),
      codes: [{ code: 'invalid_signature', status: 400 }, 'payments_not_configured', 'payload_too_large', 'unavailable', 'internal_error'],
    }),
  ];
}
