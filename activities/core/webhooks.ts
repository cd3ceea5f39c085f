//! Activities of the webhook endpoint workflow: one delivery attempt (sign with a fresh
//! timestamp, POST, record the attempt), the bookkeeping writes the workflow decides on, and the
//! pages of events a recovery sends. The signing secrets are opened here, in memory, for one
//! attempt: they never enter workflow history, logs or an error message.
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { eventCause, type EventSink } from '../../domain/events/index.js';
import {
  type MissedPage,
  createWebhookEndpoints,
  type EndpointMirror,
  type WebhookEndpointDoc,
  createWebhookFanout,
  createWebhookPoster,
  type WebhookPoster,
} from '../../domain/webhooks/index.js';
import type { Config } from '../../lib/config.js';
import { ServiceError } from '../../contracts/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { NetworkAccess } from '../../lib/network-access.js';
import type { AttemptTrigger, RecoverRequest, UndeliveredReason, WebhookEnvelope } from '../../contracts/webhook-messages.js';
import { signDelivery, WEBHOOK_HEADERS } from '../../lib/webhook-signature.js';
import { endpointConcurrency } from '../../contracts/webhook-policy.js';
import { inLinkedRoot, isTracing } from '../../lib/trace-context.js';
import { SpanStatusCode } from '@opentelemetry/api';

export interface DeliverRequest {
  endpointId: string;
  event: WebhookEnvelope;
  /** 1 for the first attempt of this delivery (a replay starts again at 1). */
  attempt: number;
  /** Set when the owner asked for this delivery (replay) or it recovers a missed event. */
  trigger?: AttemptTrigger;
}

/** Attempts of one endpoint started together (a batch): each is made at once, as `DeliverRequest` says. */
export interface DeliverBatchRequest {
  endpointId: string;
  attempts: Array<Omit<DeliverRequest, 'endpointId'>>;
}

/** An attempt's result with when it ended (epoch ms, this machine's clock): when the answer came, or none did. */
export type TimedDeliverResult = DeliverResult & { endedAt: number };

/** An attempt of a batch: its result, or `not_attempted` when our side failed it (the others still count). */
export type BatchAttemptResult = TimedDeliverResult | { outcome: 'not_attempted' };

export interface MissedEventsRequest extends RecoverRequest {
  endpointId: string;
  after?: [number, string];
  limit: number;
}

/**
 * `delivered`: any 2xx. `failed`: anything else, or no answer (`statusCode` null). `gone`: the
 * endpoint was deleted, nothing was sent.
 */
export type DeliverResult =
  | { outcome: 'delivered'; statusCode: number; durationMs: number }
  | { outcome: 'failed'; statusCode: number | null; durationMs: number; error: string }
  | { outcome: 'gone' };

export interface EndpointStatus {
  found: boolean;
  disabled: boolean;
  consecutiveFailures: number;
}

export interface WebhookActivityDeps {
  db: Db;
  /** SECRET_KEY: opens the sealed signing secrets. */
  secretKey: Buffer;
  post: WebhookPoster;
  /** Re-sends events whose fan-out did not finish (domain/webhooks/fanout.ts `refanStale`). */
  refanStale?: () => Promise<number>;
  /** @default Date.now. Tests pin the clock. */
  now?: () => number;
  /** WEBHOOK_ENDPOINT_CONCURRENCY: attempts of one endpoint at once. @default DEFAULT_ENDPOINT_CONCURRENCY */
  endpointConcurrency?: number;
  /** Where an attempt our side failed within a batch is told. */
  log?: Logger;
}

export const isSuccess = (statusCode: number) => statusCode >= 200 && statusCode <= 299;

/** The attempt's `error` text: the status for an answer, a client-safe sentence otherwise. */
export function describeError(err: unknown): string {
  if (err instanceof ServiceError) return err.message;
  return 'The delivery failed on our side before a response was received.';
}

export function deliveryHeaders(
  event: WebhookEnvelope,
  signed: { timestamp: string; signature: string; signatures: string },
): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    [WEBHOOK_HEADERS.event]: event.event,
    [WEBHOOK_HEADERS.eventId]: event.id,
    [WEBHOOK_HEADERS.timestamp]: signed.timestamp,
    [WEBHOOK_HEADERS.signature]: signed.signature,
    [WEBHOOK_HEADERS.signatures]: signed.signatures,
  };
}

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const store = createWebhookEndpoints(deps.db, deps.secretKey);
  const now = deps.now ?? Date.now;

  /** One attempt: sign, POST, record it. */
  async function deliver(endpoint: WebhookEndpointDoc | null, req: DeliverRequest): Promise<TimedDeliverResult> {
    if (!endpoint) return { outcome: 'gone', endedAt: Date.now() };
    const body = JSON.stringify(req.event);
    // Signed per attempt, so a retry hours later still falls inside the receiver's 300 s window;
    // with both secrets while a rotation's overlap runs.
    const signed = signDelivery(store.secretsOf(endpoint), body, now());
    const attemptedAt = new Date(now());
    const started = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      ({ statusCode } = await deps.post({ url: endpoint.url, headers: deliveryHeaders(req.event, signed), body }));
      if (!isSuccess(statusCode)) error = `The receiver answered HTTP ${statusCode}.`;
    } catch (err) {
      error = describeError(err);
    }
    const durationMs = Math.round(performance.now() - started);
    // The real clock, not `now` (which tests pin): the workflow orders outcomes by it.
    const endedAt = Date.now();
    const success = statusCode !== null && isSuccess(statusCode);
    await store.recordAttempt({
      endpointId: endpoint._id,
      accountId: endpoint.accountId,
      eventId: req.event.id,
      event: req.event.event,
      attempt: req.attempt,
      attemptedAt,
      statusCode,
      durationMs,
      success,
      error,
      ...(req.trigger ? { trigger: req.trigger } : {}),
    });
    return success
      ? { outcome: 'delivered', statusCode: statusCode!, durationMs, endedAt }
      : { outcome: 'failed', statusCode, durationMs, error: error!, endedAt };
  }

  /**
   * One attempt as a trace of its own (an event is delivered seconds or hours after its cause,
   * maybe many times), linked to the trace of the request or call that caused the event.
   */
  async function tracedAttempt(endpoint: WebhookEndpointDoc | null, req: DeliverRequest): Promise<TimedDeliverResult> {
    const cause = isTracing() ? await eventCause(deps.db, req.event.id) : undefined;
    const attributes = {
      'utility_tools.event': req.event.event,
      'utility_tools.webhook_endpoint_id': req.endpointId,
      'utility_tools.attempt': req.attempt,
    };
    return inLinkedRoot('webhook delivery', attributes, cause, async (span) => {
      const result = await deliver(endpoint, req);
      span.setAttribute('utility_tools.delivery.outcome', result.outcome);
      if (result.outcome !== 'gone' && result.statusCode !== null) span.setAttribute('http.response.status_code', result.statusCode);
      if (result.outcome === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, message: 'undelivered' });
      return result;
    });
  }

  return {
    /** One attempt (runs begun before attempts went out in batches). */
    async deliverWebhook(req: DeliverRequest): Promise<DeliverResult> {
      const { endedAt: _, ...result } = await tracedAttempt(await store.byId(req.endpointId), req);
      return result;
    },

    /**
     * The attempts of a batch, all at once, with the endpoint read once for them; results in the
     * order asked. An attempt our side failed (its record not written) is `not_attempted` and the
     * others stand, so they are not posted again; when every one failed, the activity fails.
     */
    async deliverWebhooks(req: DeliverBatchRequest): Promise<BatchAttemptResult[]> {
      const endpoint = await store.byId(req.endpointId);
      const settled = await Promise.allSettled(req.attempts.map((a) => tracedAttempt(endpoint, { endpointId: req.endpointId, ...a })));
      const failures = settled.filter((r) => r.status === 'rejected');
      if (failures.length === settled.length && failures.length > 0) throw failures[0]!.reason;
      return settled.map((r, i) => {
        if (r.status === 'fulfilled') return r.value;
        deps.log?.warn(
          { err: r.reason, endpointId: req.endpointId, eventId: req.attempts[i]!.event.id },
          'webhook attempt failed on our side; it is retried on the schedule',
        );
        return { outcome: 'not_attempted' };
      });
    },

    /** The endpoint's status when its workflow starts afresh (not after continue-as-new). */
    async loadWebhookEndpoint(endpointId: string): Promise<EndpointStatus> {
      const doc = await store.byId(endpointId);
      if (!doc) return { found: false, disabled: false, consecutiveFailures: 0 };
      return { found: true, disabled: doc.status === 'disabled', consecutiveFailures: doc.consecutiveFailures };
    },

    /** What a run of an endpoint's workflow reads as it starts: this worker's settings. */
    async webhookDeliverySettings(): Promise<{ concurrency: number }> {
      return { concurrency: endpointConcurrency(deps.endpointConcurrency) };
    },

    /** Mirrors the workflow's count and status into the endpoint document the API reads. */
    async mirrorWebhookEndpoint(endpointId: string, state: EndpointMirror): Promise<void> {
      await store.mirror(endpointId, state);
    },

    /** Records deliveries that end without reaching the receiver, with the reason. */
    async recordUndelivered(
      endpointId: string,
      items: Array<{ event: WebhookEnvelope; attempts: number }>,
      reason: UndeliveredReason,
      endedAt: number,
    ): Promise<void> {
      const endpoint = await store.byId(endpointId);
      if (!endpoint) return;
      await store.recordUndelivered(endpoint, items, reason, new Date(endedAt));
    },

    /** Drops the previous secret once rotation `rotationId`'s overlap is over (a later rotation is kept). */
    async endSecretOverlap(endpointId: string, rotationId: string): Promise<void> {
      await store.endOverlap(endpointId, rotationId);
    },

    /** The next page of events a recovery sends (domain/webhooks/deliveries.ts `missedEvents`). */
    async missedWebhookEvents(req: MissedEventsRequest): Promise<MissedPage> {
      const endpoint = await store.byId(req.endpointId);
      if (!endpoint) return { events: [], exhausted: true };
      return store.missedEvents(endpoint, { since: req.since, until: req.until }, req.after, req.limit);
    },

    /** Schedule-driven: re-sends events recorded but not (fully) fanned out, e.g. after a crash. */
    async refanWebhookEvents(): Promise<number> {
      return deps.refanStale ? deps.refanStale() : 0;
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;

/**
 * The core worker's webhook wiring from configuration: the fan-out the ledger hands its events
 * to, and what delivery needs (the process's guard and resolver, SECRET_KEY).
 */
export function webhookWiring(deps: {
  config: Config;
  db: Db;
  client: Client;
  log: Logger;
  /** The process's network access: delivery resolves and checks receivers with its resolver and guard. */
  net: Pick<NetworkAccess, 'resolver' | 'guard'>;
}): { onEvent: EventSink; webhooks: WebhookActivityDeps } {
  const { config, db } = deps;
  const { resolver, guard } = deps.net;
  const fanout = createWebhookFanout({ db, client: deps.client, log: deps.log });
  const post = createWebhookPoster({ guard, resolver, allowLocalhost: config.webhooksAllowLocalhost });
  return {
    onEvent: fanout.onEvent,
    webhooks: {
      db,
      secretKey: config.secretKey,
      post,
      refanStale: () => fanout.refanStale(),
      endpointConcurrency: config.webhookEndpointConcurrency,
      log: deps.log,
    },
  };
}
