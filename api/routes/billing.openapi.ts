//! The OpenAPI operations of credit packs, checkout, purchases and automatic recharge (`api/routes/billing.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { LIMIT_DEFAULT, LIMIT_MAX } from '../paging.js';
import { AutoRechargeBody, CheckoutBody, PutCreditPackBody } from '../bodies/billing.js';
import { json } from '../docs/openapi-parts.js';
import { ref } from '../docs/schema-parts.js';
import { ADMIN, answer, BODY_CODES, jsonBody, open, operation, OWNER, plain, resource, type RouteOperation } from '../docs/operations.js';
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
  const billing = resource('billing', OWNER);
  const operator = resource('operator', ADMIN);
  return [
    billing('get', '/api/v1/account/credit-packs', {
      operationId: 'listCreditPacks',
      summary: 'List credit packs for sale',
      description: 'The packs the operator sells, cheapest first. Listed also while the service takes no payments.',
      ok: answer('The packs.', 'CreditPackList'),
    }),
    billing('post', '/api/v1/account/checkout', {
      operationId: 'checkout',
      summary: 'Buy a credit pack',
      description:
        'Opens a Stripe Checkout Session for the pack and records a pending purchase with its credits, price and expiry as they are now (a pack changed later does not change it). ' +
        "Send the customer to `url`; the credits are granted when Stripe's signed event says the payment succeeded, once. `saveCard` keeps the card for automatic recharges. " +
        '404 for a pack that is not for sale; 409 `payments_not_configured` while the operator has not configured Stripe.',
      requestBody: jsonBody(CheckoutBody, { packId: 'starter', saveCard: true }),
      ok: answer('The session to send the customer to.', 'CheckoutSession', '201'),
      codes: [...BODY_CODES, 'not_found', 'payments_not_configured', 'upstream_error'],
    }),
    billing('get', '/api/v1/account/purchases', {
      operationId: 'listPurchases',
      summary: 'List purchases',
      description:
        'Every purchase, newest first: pending until paid, then paid, refunded in part or in full, or disputed, with the credits taken back (never more than was left unspent) and the receipt. Page with `cursor`.',
      parameters: [
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, maximum: LIMIT_MAX, default: LIMIT_DEFAULT },
        },
        { name: 'cursor', in: 'query', required: false, description: '`nextCursor` of the previous page.', schema: { type: 'string' } },
      ],
      ok: answer('A page of purchases.', 'PurchasePage'),
      codes: ['validation_failed'],
    }),
    billing('get', '/api/v1/account/auto-recharge', {
      operationId: 'getAutoRecharge',
      summary: 'Get auto-recharge',
      ok: answer('The settings and how they stand.', 'AutoRecharge'),
    }),
    billing('put', '/api/v1/account/auto-recharge', {
      operationId: 'setAutoRecharge',
      summary: 'Set auto-recharge',
      description:
        'When a charged call takes the balance below `threshold`, one recharge buys `packId` with the card saved at checkout, off-session, at most `monthlyLimit` times a calendar month (UTC), never two at once; calls never wait for it. ' +
        "Its credits arrive with Stripe's event. A failure fires `credits.recharge_failed`; three in a row turn auto-recharge off. Turning it on needs a saved card (400 naming `/enabled`).",
      requestBody: jsonBody(AutoRechargeBody, { enabled: true, packId: 'starter', threshold: 200, monthlyLimit: 4 }),
      ok: answer('The settings and how they stand.', 'AutoRecharge'),
      codes: [...BODY_CODES, 'payments_not_configured'],
    }),
    operator('get', '/api/v1/admin/credit-packs', {
      operationId: 'listCreditPacksAsOperator',
      summary: 'List credit packs',
      description: 'Every pack, withdrawn ones included, cheapest first.',
      ok: plain('The packs.', json(ref('CreditPackList'))),
    }),
    operator('put', '/api/v1/admin/credit-packs/{id}', {
      operationId: 'putCreditPack',
      summary: 'Create or change a credit pack',
      description:
        'Creates the pack `id`, or replaces what it says. Purchases already made keep the terms they were made with. `active: false` withdraws it from sale.',
      parameters: [packId],
      requestBody: jsonBody(PutCreditPackBody, PACK_EXAMPLE),
      ok: plain('The pack.', json(ref('CreditPack'))),
      codes: [...BODY_CODES],
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
