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
    const limit = parseLimit(ctx.query.limit);
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
