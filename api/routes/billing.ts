//! Billing's routes: the operator's credit packs, the account's packs, checkout, purchases and
//! auto-recharge (the account API's authentication), and Stripe's webhook, which only verifies the
//! signature on the raw body and hands the event to its workflow before answering (Stripe's
//! fulfilment guide: the route verifies and hands on; domain/billing/ does the rest).
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Db } from 'mongodb';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { ServiceError } from '../../contracts/errors.js';
import type { Logger } from '../../lib/logger.js';
import { TASK_QUEUES, WORKFLOW_TYPES } from '../../contracts/temporal-names.js';
import { stripeEventWorkflowId, type StripeFact } from '../../contracts/billing-messages.js';
import { type Authenticator, requireAdmin } from '../auth.js';
import { ownerActing } from '../audit-context.js';
import { DEFAULT_BODY_LIMIT, readJsonObject, readRawBody } from '../body.js';
import { AutoRechargeBody, CheckoutBody, PutCreditPackBody } from '../bodies/billing.js';
import { compileBodySchema, validationProblem } from '../validation.js';
import { cursorOf, pageBody, parseLimit } from '../paging.js';
import { unavailable } from '../call-workflow.js';
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
import {
  createPacks,
  packView,
  PACK_ID_PATTERN,
  createPurchases,
  purchaseView,
  createCustomers,
  createCheckout,
  createAutoRecharge,
  createStripeSignatures,
  stripeFactOf,
  type StripeApi,
} from '../../domain/billing/index.js';

const PURCHASES_DEFAULT_LIMIT = 50;
const PURCHASES_MAX_LIMIT = 200;

export interface BillingDeps {
  db: Db;
  client: Client;
  log: Logger;
  auth: Authenticator;
  rateLimit: Middleware;
  adminToken?: string;
  /** PUBLIC_BASE_URL: where Stripe sends the customer back after checkout. */
  baseUrl: string;
  /** Stripe, when STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set; purchases are off without it. */
  stripe?: { api: StripeApi; webhookSecret: string };
}

const paymentsOff = () =>
  new ServiceError(
    'payments_not_configured',
    'This service takes no payments: the operator has not configured Stripe. The operator can grant credits by hand.',
  );

export function billingRoutes(deps: BillingDeps): Router[] {
  const packs = createPacks(deps.db);
  const purchases = createPurchases(deps.db);
  const autoRecharge = createAutoRecharge(deps.db, packs);
  const stripe = deps.stripe;
  const checkout =
    stripe &&
    createCheckout({
      db: deps.db,
      stripe: stripe.api,
      packs,
      customers: createCustomers(deps.db, stripe.api),
      log: deps.log,
      baseUrl: deps.baseUrl,
    });
  const signatures = stripe && createStripeSignatures(deps.db, stripe.api, stripe.webhookSecret);
  const putPack = compileBodySchema(PutCreditPackBody);
  const checkoutBody = compileBodySchema(CheckoutBody);
  const rechargeBody = compileBodySchema(AutoRechargeBody);

  // The operator's packs.
  const operator = new Router({ prefix: '/api/v1/admin/credit-packs' });
  operator.use(requireAdmin(deps.adminToken));
  operator.get('/', async (ctx) => {
    ctx.body = (await packs.list({ activeOnly: false })).map(packView);
  });
  operator.put('/:id', async (ctx) => {
    const id = ctx.params.id!;
    if (!new RegExp(PACK_ID_PATTERN).test(id))
      throw validationProblem([{ field: 'path:id', message: 'must be lowercase letters, digits, - and _ (at most 64)' }]);
    ctx.body = packView(await packs.put(id, putPack(await readJsonObject(ctx))));
  });

  // The account's.
  const account = new Router({ prefix: '/api/v1/account' });
  account.use(deps.auth.require('owner_token'), deps.rateLimit);
  account.get('/credit-packs', async (ctx) => {
    ctx.body = (await packs.list({ activeOnly: true })).map(packView);
  });
  account.post('/checkout', async (ctx) => {
    const body = checkoutBody(await readJsonObject(ctx));
    if (!checkout) throw paymentsOff();
    ctx.status = 201;
    ctx.body = await checkout.checkout(ctx.state.principal.accountId, body.packId, body.saveCard ?? false, ownerActing(ctx));
  });
  account.get('/purchases', async (ctx) => {
    const limit = parseLimit(ctx.query.limit, PURCHASES_DEFAULT_LIMIT, PURCHASES_MAX_LIMIT);
    const { items, more } = await purchases.list(ctx.state.principal.accountId, { limit, before: cursorOf(ctx.query) });
    ctx.body = pageBody({ rows: items, more }, purchaseView);
  });
  account.get('/auto-recharge', async (ctx) => {
    ctx.body = await autoRecharge.view(ctx.state.principal.accountId);
  });
  account.put('/auto-recharge', async (ctx) => {
    const body = rechargeBody(await readJsonObject(ctx));
    if (body.enabled && !stripe) throw paymentsOff();
    const accountId = ctx.state.principal.accountId as string;
    const problems = await autoRecharge.problems(accountId, body);
    if (problems.length) throw validationProblem(problems);
    await autoRecharge.update(accountId, body, ownerActing(ctx));
    ctx.body = await autoRecharge.view(accountId);
  });

  // Stripe's events.
  const webhook = new Router({ prefix: '/api/v1/billing' });
  webhook.post('/stripe-webhook', async (ctx) => {
    if (!signatures) throw paymentsOff();
    const raw = await readRawBody(ctx, DEFAULT_BODY_LIMIT);
    const header = ctx.get('Stripe-Signature') || undefined;
    const event = await signatures.verify(raw, header);
    const fact = stripeFactOf(event);
    if (fact) {
      try {
        await startFulfilment(deps.client, fact);
      } catch (err) {
        // Not recorded: Stripe sends it again, signed afresh; the same request may be sent again too.
        if (header) await signatures.forget(header).catch(() => undefined);
        throw unavailable(err);
      }
    }
    ctx.body = { received: true };
  });

  return [operator, account, webhook];
}

/**
 * The event's workflow, keyed by its id: started once, however often Stripe delivers it. Only
 * its fact travels (contracts/billing-messages.ts), not the event.
 */
async function startFulfilment(client: Client, fact: StripeFact): Promise<void> {
  try {
    await client.workflow.start(WORKFLOW_TYPES.stripeEvent, {
      workflowId: stripeEventWorkflowId(fact.eventId),
      taskQueue: TASK_QUEUES.core,
      args: [fact],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

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
