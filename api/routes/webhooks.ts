//! Webhook endpoints of the account (`Authorization: Bearer <ownerToken>`): register, list,
//! change the event types, delete, send a test event, re-enable (and recover what was missed),
//! rotate the signing secret, replay an event, and read the delivery attempts.
import Router from '@koa/router';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Middleware } from 'koa';
import type { Db } from 'mongodb';
import { ToolError } from '../../lib/errors.js';
import { EVENT_RETENTION_MS, eventOfDoc, newEvent, type EventRecorder, type SubscribableEventKind } from '../../lib/events.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { collections } from '../../lib/mongo.js';
import type { TargetGuard } from '../../lib/target-guard.js';
import type { InputReason } from '../../lib/target-host.js';
import { createWebhookEndpoints, publicAttempt, publicEndpoint } from '../../lib/webhook-endpoints.js';
import { signalEndpoint } from '../../lib/webhook-fanout.js';
import { toEnvelope, WEBHOOK_SIGNALS, webhookWorkflowId, type RecoverRequest, type RotationNotice } from '../../lib/webhook-messages.js';
import { SECRET_OVERLAP_MS } from '../../lib/webhook-policy.js';
import { isLocalhostUrl } from '../../lib/webhook-transport.js';
import type { Authenticator } from '../auth.js';
import { readJsonObject } from '../body.js';
import { BODY_SCHEMAS } from '../body-schemas.js';
import { compileBodySchema } from '../validation.js';
import { parseLimit } from '../paging.js';

const ATTEMPTS_DEFAULT_LIMIT = 50;
const ATTEMPTS_MAX_LIMIT = 200;
/** Each event is signalled to every endpoint of its account: the cap bounds that fan-out. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;

export interface WebhookRouteDeps {
  db: Db;
  client: Client;
  log: Logger;
  auth: Authenticator;
  rateLimit: Middleware;
  /** SECRET_KEY: seals signing secrets at rest. */
  secretKey: Buffer;
  /** WEBHOOKS_ALLOW_LOCALHOST. */
  allowLocalhost: boolean;
  /** The service's target guard: a new URL must be https to a public address. */
  guard: TargetGuard;
  /** Records `webhook.test` and hands it to the fan-out. */
  record: EventRecorder;
}

/**
 * Checks a URL for registration and returns it normalised. `localhost` (any scheme) only when
 * allowed; anything else must be https and resolve to public addresses only (delivery checks
 * again on every attempt, so a later DNS change cannot reach inside either). A badly written URL
 * (not absolute, another scheme, credentials, bad port) is 400 `validation_failed`; a refused
 * address (private, loopback, metadata ... or localhost while not allowed) 422 `target_not_allowed`.
 */
export async function checkEndpointUrl(raw: string, deps: { guard: TargetGuard; allowLocalhost: boolean }): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badUrl('The url is not an absolute URL.', 'must be an absolute URL');
  }
  try {
    if (isLocalhostUrl(url)) {
      if (!deps.allowLocalhost) {
        throw new ToolError('target_not_allowed', 'localhost webhook URLs are not allowed on this service; use an https URL with a public address.', { reason: 'loopback' });
      }
      deps.guard.checkUrl(url, { schemes: ['http', 'https'] }); // scheme, credentials, port
      return url.href;
    }
    await deps.guard.resolveUrl(url, { schemes: ['https'] });
    return url.href;
  } catch (err) {
    // The URL itself is wrong (scheme, credentials, port): a validation failure of the body.
    // A refused address stays 422 `target_not_allowed`.
    const reason = err instanceof ToolError ? err.extras.reason : undefined;
    if (typeof reason === 'string' && URL_INPUT_REASONS.has(reason)) throw badUrl((err as Error).message, (err as Error).message);
    throw err;
  }
}

/** Guard refusals that are about how the URL is written, not where it points. */
const URL_INPUT_REASONS: ReadonlySet<string> = new Set(['invalid_url', 'scheme', 'credentials', 'empty_host', 'invalid_host', 'invalid_port'] satisfies InputReason[]);

function badUrl(detail: string, message: string): ToolError {
  return new ToolError('validation_failed', detail, { errors: [{ field: '/url', message }] });
}

function noEndpoint(id: string): ToolError {
  return new ToolError('not_found', `There is no webhook endpoint ${id} on this account.`);
}

function unavailable(cause: unknown): ToolError {
  return new ToolError('unavailable', 'Webhook delivery cannot be reached right now; retry shortly.', {}, { cause });
}

/** Rotations that race on one endpoint are retried this often before answering 503. */
const ROTATE_TRIES = 3;

/** `recoverSince` as epoch ms: a time in the last 30 days (events older than that are gone). */
export function recoverySince(raw: string | undefined, now: number): number | undefined {
  if (raw === undefined) return undefined;
  const since = Date.parse(raw);
  if (Number.isNaN(since) || since > now || since < now - EVENT_RETENTION_MS) {
    throw new ToolError('validation_failed', 'recoverSince must be a time within the last 30 days.', {
      errors: [{ field: '/recoverSince', message: 'must be within the last 30 days' }],
    });
  }
  return since;
}

export function webhookRoutes(deps: WebhookRouteDeps): Router {
  const router = new Router({ prefix: '/api/v1/account/webhooks' });
  const store = createWebhookEndpoints(deps.db, deps.secretKey);
  const { events } = collections(deps.db);
  const createBody = compileBodySchema(BODY_SCHEMAS.createWebhook);
  const updateBody = compileBodySchema(BODY_SCHEMAS.updateWebhook);
  const enableBody = compileBodySchema(BODY_SCHEMAS.enableWebhook);
  const replayBody = compileBodySchema(BODY_SCHEMAS.replayEvent);
  const noBody = compileBodySchema(BODY_SCHEMAS.noBody);

  router.use(deps.auth.require('owner_token'), deps.rateLimit);

  async function owned(accountId: string, id: string) {
    const doc = await store.get(accountId, id);
    if (!doc) throw noEndpoint(id);
    return doc;
  }

  /** Signals the endpoint's workflow, starting it if it is not running. */
  async function tell(endpointId: string, signal: string, args: unknown[] = []) {
    try {
      await signalEndpoint(deps.client, endpointId, signal, args);
    } catch (err) {
      throw unavailable(err);
    }
  }

  router.get('/', async (ctx) => {
    ctx.body = (await store.list(ctx.state.principal.accountId)).map(publicEndpoint);
  });

  router.post('/', async (ctx) => {
    const accountId = ctx.state.principal.accountId as string;
    const body = createBody(await readJsonObject(ctx)) as { url: string; eventTypes?: SubscribableEventKind[] };
    const url = await checkEndpointUrl(body.url, deps);
    if ((await store.count(accountId)) >= MAX_ENDPOINTS_PER_ACCOUNT) {
      throw new ToolError('validation_failed', `An account can have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one first.`, {
        errors: [{ field: '/url', message: `at most ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints per account` }],
      });
    }
    const { doc, secret } = await store.create(accountId, url, body.eventTypes);
    ctx.status = 201;
    ctx.body = { ...publicEndpoint(doc), secret };
  });

  router.patch('/:id', async (ctx) => {
    const body = updateBody(await readJsonObject(ctx)) as { eventTypes: SubscribableEventKind[] };
    const doc = await store.setEventTypes(ctx.state.principal.accountId, ctx.params.id!, body.eventTypes);
    if (!doc) throw noEndpoint(ctx.params.id!);
    ctx.body = publicEndpoint(doc);
  });

  router.delete('/:id', async (ctx) => {
    const accountId = ctx.state.principal.accountId as string;
    const id = ctx.params.id!;
    if (!(await store.remove(accountId, id))) throw noEndpoint(id);
    // Deleted first, so the fan-out stops at once; the workflow also ends by itself at its next
    // attempt (the endpoint is gone), so a failed signal here loses nothing.
    try {
      await deps.client.workflow.getHandle(webhookWorkflowId(id)).signal(WEBHOOK_SIGNALS.remove);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) deps.log.warn({ err, endpointId: id }, 'could not tell the webhook workflow about a deletion');
    }
    ctx.status = 204;
  });

  router.post('/:id/test', async (ctx) => {
    const accountId = ctx.state.principal.accountId as string;
    const endpoint = await owned(accountId, ctx.params.id!);
    // The fan-out sends `webhook.test` to the endpoint named in its data only.
    const event = newEvent(accountId, 'webhook.test', { endpointId: endpoint._id, message: 'This is a test event from Utility Tools.' });
    await deps.record(event);
    ctx.status = 202;
    ctx.body = { eventId: event.id };
  });

  router.post('/:id/enable', async (ctx) => {
    const accountId = ctx.state.principal.accountId as string;
    const body = enableBody(await readJsonObject(ctx, undefined, { allowEmpty: true })) as { recoverSince?: string };
    const since = recoverySince(body.recoverSince, Date.now());
    await owned(accountId, ctx.params.id!);
    // The workflow first: it holds the count and mirrors it back; the write below only makes the
    // answer (and the fan-out) see the new status at once.
    await tell(ctx.params.id!, WEBHOOK_SIGNALS.enable);
    const doc = await store.enable(accountId, ctx.params.id!);
    if (!doc) throw noEndpoint(ctx.params.id!);
    if (since !== undefined) {
      // Up to now, after the write: from here on the fan-out sends new events itself, and the
      // workflow drops an event that reaches it both ways.
      const span: RecoverRequest = { since, until: Date.now() };
      await tell(doc._id, WEBHOOK_SIGNALS.recover, [span]);
    }
    ctx.body = publicEndpoint(doc);
  });

  router.post('/:id/rotate-secret', async (ctx) => {
    const accountId = ctx.state.principal.accountId as string;
    noBody(await readJsonObject(ctx, undefined, { allowEmpty: true }));
    let doc = await owned(accountId, ctx.params.id!);
    // The workflow learns the rotation before it exists, so that no rotation is left without the
    // timer that ends its overlap; if the write below never happens, that timer changes nothing.
    const notice: RotationNotice = { rotationId: newId('rot'), overlapMs: SECRET_OVERLAP_MS };
    await tell(doc._id, WEBHOOK_SIGNALS.rotate, [notice]);
    const overlapEndsAt = new Date(Date.now() + SECRET_OVERLAP_MS);
    for (let i = 0; i < ROTATE_TRIES; i++) {
      const rotated = await store.rotate(doc, notice.rotationId, overlapEndsAt);
      if (rotated) {
        ctx.body = { ...publicEndpoint(rotated.doc), secret: rotated.secret };
        return;
      }
      doc = await owned(accountId, doc._id); // another rotation got there first: rotate after it
    }
    throw unavailable(new Error('rotation kept racing'));
  });

  router.delete('/:id/previous-secret', async (ctx) => {
    // The workflow's timer for the overlap finds nothing left to end.
    const doc = await store.endOverlapNow(ctx.state.principal.accountId, ctx.params.id!);
    if (!doc) throw noEndpoint(ctx.params.id!);
    ctx.body = publicEndpoint(doc);
  });

  router.post('/:id/replay', async (ctx) => {
    const accountId = ctx.state.principal.accountId as string;
    const body = replayBody(await readJsonObject(ctx)) as { eventId: string };
    const endpoint = await owned(accountId, ctx.params.id!);
    if (endpoint.status === 'disabled') {
      throw new ToolError('endpoint_disabled', `The endpoint ${endpoint._id} is disabled; re-enable it before replaying events to it.`);
    }
    const event = await events.findOne({ _id: body.eventId, accountId });
    if (!event) throw new ToolError('not_found', `There is no event ${body.eventId} on this account (events are kept 30 days).`);
    await tell(endpoint._id, WEBHOOK_SIGNALS.replay, [toEnvelope(eventOfDoc(event))]);
    ctx.status = 202;
    ctx.body = { eventId: event._id, endpointId: endpoint._id };
  });

  router.get('/:id/attempts', async (ctx) => {
    const limit = parseLimit(ctx.query.limit, ATTEMPTS_DEFAULT_LIMIT, ATTEMPTS_MAX_LIMIT);
    const endpoint = await owned(ctx.state.principal.accountId, ctx.params.id!);
    ctx.body = (await store.attempts(endpoint._id, limit)).map(publicAttempt);
  });

  return router;
}
