//! Webhook endpoints of the account (`Authorization: Bearer <ownerToken>`): register, list,
//! change the event types, delete, send a test event, re-enable (and recover what was missed),
//! rotate the signing secret, replay an event, and read the delivery attempts. HTTP only: what
//! each request does is the webhook service (`domain/webhooks/service.ts`).
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { WebhookService } from '../../domain/webhooks/index.js';
import type { Authenticator } from '../auth.js';
import { readJsonObject } from '../body.js';
import { NoBody } from '../bodies/labels.js';
import { CreateWebhookBody, EnableWebhookBody, ReplayEventBody, UpdateWebhookBody } from '../bodies/webhooks.js';
import { compileBodySchema } from '../validation.js';
import { parseLimit } from '../paging.js';
import { ownerActing } from '../audit-context.js';

export interface WebhookRouteDeps {
  auth: Authenticator;
  rateLimit: Middleware;
  webhooks: WebhookService;
}

export function webhookRoutes(deps: WebhookRouteDeps): Router {
  const router = new Router({ prefix: '/api/v1/account/webhooks' });
  const { webhooks } = deps;
  const createBody = compileBodySchema(CreateWebhookBody);
  const updateBody = compileBodySchema(UpdateWebhookBody);
  const enableBody = compileBodySchema(EnableWebhookBody);
  const replayBody = compileBodySchema(ReplayEventBody);
  const noBody = compileBodySchema(NoBody);

  router.use(deps.auth.require('owner_token'), deps.rateLimit);

  router.get('/', async (ctx) => {
    ctx.body = await webhooks.list(ctx.state.principal.accountId);
  });

  router.post('/', async (ctx) => {
    const body = createBody(await readJsonObject(ctx));
    const created = await webhooks.register(ctx.state.principal.accountId, body.url, body.eventTypes, ownerActing(ctx));
    ctx.status = 201;
    ctx.body = created;
  });

  router.patch('/:id', async (ctx) => {
    const body = updateBody(await readJsonObject(ctx));
    ctx.body = await webhooks.setEventTypes(ctx.state.principal.accountId, ctx.params.id!, body.eventTypes, ownerActing(ctx));
  });

  router.delete('/:id', async (ctx) => {
    await webhooks.remove(ctx.state.principal.accountId, ctx.params.id!, ownerActing(ctx));
    ctx.status = 204;
  });

  router.post('/:id/test', async (ctx) => {
    const sent = await webhooks.sendTest(ctx.state.principal.accountId, ctx.params.id!);
    ctx.status = 202;
    ctx.body = sent;
  });

  router.post('/:id/enable', async (ctx) => {
    const body = enableBody(await readJsonObject(ctx, undefined, { allowEmpty: true }));
    ctx.body = await webhooks.enable(ctx.state.principal.accountId, ctx.params.id!, body.recoverSince, ownerActing(ctx));
  });

  router.post('/:id/rotate-secret', async (ctx) => {
    noBody(await readJsonObject(ctx, undefined, { allowEmpty: true }));
    ctx.body = await webhooks.rotateSecret(ctx.state.principal.accountId, ctx.params.id!, ownerActing(ctx));
  });

  router.delete('/:id/previous-secret', async (ctx) => {
    ctx.body = await webhooks.endOverlapNow(ctx.state.principal.accountId, ctx.params.id!, ownerActing(ctx));
  });

  router.post('/:id/replay', async (ctx) => {
    const body = replayBody(await readJsonObject(ctx));
    const replayed = await webhooks.replay(ctx.state.principal.accountId, ctx.params.id!, body.eventId);
    ctx.status = 202;
    ctx.body = replayed;
  });

  router.get('/:id/attempts', async (ctx) => {
    const limit = parseLimit(ctx.query.limit);
    ctx.body = await webhooks.attempts(ctx.state.principal.accountId, ctx.params.id!, limit);
  });

  return router;
}
