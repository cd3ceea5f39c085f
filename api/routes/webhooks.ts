//! Webhook endpoints of the account (`Authorization: Bearer <ownerToken>`): register, list,
//! delete, send a test event, re-enable, and read the delivery attempts.
import Router from '@koa/router';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Middleware } from 'koa';
import type { Db } from 'mongodb';
import { ToolError } from '../../lib/errors.js';
import { newEvent, type EventRecorder } from '../../lib/events.js';
import type { Logger } from '../../lib/logger.js';
import { TASK_QUEUES, WORKFLOW_TYPES } from '../../lib/temporal-shared.js';
import type { InputReason, TargetGuard } from '../../lib/target-guard.js';
import { createWebhookEndpoints, publicAttempt, publicEndpoint } from '../../lib/webhook-endpoints.js';
import { WEBHOOK_SIGNALS, webhookWorkflowId, type WebhookEndpointInput } from '../../lib/webhook-messages.js';
import { isLocalhostUrl } from '../../lib/webhook-transport.js';
import type { Authenticator } from '../auth.js';
import { readJsonObject } from '../body.js';
import { BODY_SCHEMAS } from '../body-schemas.js';
import { compileBodySchema } from '../validation.js';
import { parseLimit } from './account.js';

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

function unavailable(cause: unknown): ToolError {
  return new ToolError('unavailable', 'Webhook delivery cannot be reached right now; retry shortly.', {}, { cause, headers: { 'Retry-After': '5' } });
}

export function webhookRoutes(deps: WebhookRouteDeps): Router {
  const router = new Router({ prefix: '/api/v1/account/webhooks' });
  const store = createWebhookEndpoints(deps.db, deps.secretKey);
  const createBody = compileBodySchema(BODY_SCHEMAS.createWebhook);

  router.use(deps.auth.require('owner_token'), deps.rateLimit);

  async function owned(accountId: string, id: string) {
    const doc = await store.get(accountId, id);
    if (!doc) throw new ToolError('not_found', `There is no webhook endpoint ${id} on this account.`);
    return doc;
  }

  /** Signals the endpoint's workflow, starting it if it is not running. */
  async function tell(endpointId: string, signal: string) {
    const input: WebhookEndpointInput = { endpointId };
    try {
      await deps.client.workflow.signalWithStart(WORKFLOW_TYPES.webhookEndpoint, {
        workflowId: webhookWorkflowId(endpointId),
        taskQueue: TASK_QUEUES.core,
        args: [input],
        signal,
        signalArgs: [],
      });
    } catch (err) {
      throw unavailable(err);
    }
  }

  router.get('/', async (ctx) => {
    ctx.body = (await store.list(ctx.state.principal.accountId)).map(publicEndpoint);
  });

  router.post('/', async (ctx) => {
    const accountId = ctx.state.principal.accountId as string;
    const body = createBody(await readJsonObject(ctx)) as { url: string };
    const url = await checkEndpointUrl(body.url, deps);
    if ((await store.count(accountId)) >= MAX_ENDPOINTS_PER_ACCOUNT) {
      throw new ToolError('validation_failed', `An account can have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one first.`, {
        errors: [{ field: '/url', message: `at most ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints per account` }],
      });
    }
    const { doc, secret } = await store.create(accountId, url);
    ctx.status = 201;
    ctx.body = { ...publicEndpoint(doc), secret };
  });

  router.delete('/:id', async (ctx) => {
    const accountId = ctx.state.principal.accountId as string;
    const id = ctx.params.id!;
    if (!(await store.remove(accountId, id))) throw new ToolError('not_found', `There is no webhook endpoint ${id} on this account.`);
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
    await owned(accountId, ctx.params.id!);
    // The workflow first: it holds the count and mirrors it back; the write below only makes the
    // answer (and the fan-out) see the new status at once.
    await tell(ctx.params.id!, WEBHOOK_SIGNALS.enable);
    const doc = await store.enable(accountId, ctx.params.id!);
    if (!doc) throw new ToolError('not_found', `There is no webhook endpoint ${ctx.params.id} on this account.`);
    ctx.body = publicEndpoint(doc);
  });

  router.get('/:id/attempts', async (ctx) => {
    const limit = parseLimit(ctx.query.limit, ATTEMPTS_DEFAULT_LIMIT, ATTEMPTS_MAX_LIMIT);
    const endpoint = await owned(ctx.state.principal.accountId, ctx.params.id!);
    ctx.body = (await store.attempts(endpoint._id, limit)).map(publicAttempt);
  });

  return router;
}
