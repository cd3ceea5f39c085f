//! What the account API does with webhook endpoints, below HTTP: register (URL admission and the
//! per-account cap), change types, delete, send a test event, re-enable and recover, rotate the
//! signing secret (retrying a rotation that raced), replay an event, read the attempts. The store
//! keeps the records; the endpoint's workflow, told by signal, does everything that takes time.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { EVENT_RETENTION_MS, type SubscribableEventKind } from '../../contracts/event-kinds.js';
import { ServiceError } from '../../contracts/errors.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { collections } from '../../lib/mongo.js';
import type { WebhookEndpointDoc } from './documents.js';
import {
  toEnvelope,
  WEBHOOK_SIGNALS,
  webhookWorkflowId,
  type RecoverRequest,
  type RotationNotice,
} from '../../contracts/webhook-messages.js';
import { SECRET_OVERLAP_MS } from '../../contracts/webhook-policy.js';
import { eventOfDoc, newEvent, type EventRecorder } from '../events/index.js';
import { publicAttempt } from './deliveries.js';
import { createWebhookEndpoints, publicEndpoint, type WebhookEndpoints } from './endpoints.js';
import { signalEndpoint } from './fanout.js';
import { checkEndpointUrl, type UrlAdmission } from './url-admission.js';
import { createAuditLog, deletionDraft, type AuditContext, type AuditLog } from '../audit/index.js';

/** Each event is signalled to every endpoint of its account: the cap bounds that fan-out. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;

/** Rotations that race on one endpoint are retried this often before answering 503. */
const ROTATE_TRIES = 3;

export interface WebhookServiceDeps extends UrlAdmission {
  db: Db;
  client: Client;
  log: Logger;
  /** SECRET_KEY: seals signing secrets at rest. */
  secretKey: Buffer;
  /** Records `webhook.test` and hands it to the fan-out. */
  record: EventRecorder;
}

/** `recoverSince` as epoch ms: a time in the last 30 days (events older than that are gone). */
export function recoverySince(raw: string | undefined, now: number): number | undefined {
  if (raw === undefined) return undefined;
  const since = Date.parse(raw);
  if (Number.isNaN(since) || since > now || since < now - EVENT_RETENTION_MS) {
    throw new ServiceError('validation_failed', 'recoverSince must be a time within the last 30 days.', {
      errors: [{ field: '/recoverSince', message: 'must be within the last 30 days' }],
    });
  }
  return since;
}

function noEndpoint(id: string): ServiceError {
  return new ServiceError('not_found', `There is no webhook endpoint ${id} on this account.`);
}

function unavailable(cause: unknown): ServiceError {
  return new ServiceError('unavailable', 'Webhook delivery cannot be reached right now; retry shortly.', {}, { cause });
}

/** The account's endpoints as records: what needs no word to the endpoint's workflow. */
function createEndpointRecordsService(deps: WebhookServiceDeps, store: WebhookEndpoints, auditLog: AuditLog) {
  return {
    list: async (accountId: string) => (await store.list(accountId)).map(publicEndpoint),

    /** A new endpoint and, this once, its signing secret. */
    async register(accountId: string, rawUrl: string, eventTypes: SubscribableEventKind[] | undefined, audit: AuditContext) {
      const url = await checkEndpointUrl(rawUrl, deps);
      if ((await store.count(accountId)) >= MAX_ENDPOINTS_PER_ACCOUNT) {
        throw new ServiceError(
          'validation_failed',
          `An account can have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one first.`,
          {
            errors: [{ field: '/url', message: `at most ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints per account` }],
          },
        );
      }
      const { doc, secret } = await store.create(accountId, url, eventTypes, audit);
      await auditLog.flush('endpoint', doc._id);
      return { ...publicEndpoint(doc), secret };
    },

    async setEventTypes(accountId: string, id: string, eventTypes: SubscribableEventKind[], audit: AuditContext) {
      for (;;) {
        const before = await owned(store, accountId, id);
        const doc = await store.setEventTypes(before, eventTypes, audit);
        if (!doc) continue; // changed meanwhile: the entry must say what they were
        await auditLog.flush('endpoint', id);
        return publicEndpoint(doc);
      }
    },

    /** Records `webhook.test`; the fan-out sends it to the endpoint named in its data only. */
    async sendTest(accountId: string, id: string) {
      const endpoint = await owned(store, accountId, id);
      const event = newEvent(accountId, 'webhook.test', { endpointId: endpoint._id, message: 'This is a test event from Utility Tools.' });
      await deps.record(event);
      return { eventId: event.id };
    },

    /** The workflow's timer for the overlap finds nothing left to end. */
    async endOverlapNow(accountId: string, id: string, audit: AuditContext) {
      const doc = await store.endOverlapNow(accountId, id, audit);
      if (!doc) throw noEndpoint(id);
      await auditLog.flush('endpoint', id);
      return publicEndpoint(doc);
    },

    /** Attempts newest first. */
    async attempts(accountId: string, id: string, limit: number) {
      const endpoint = await owned(store, accountId, id);
      return (await store.attempts(endpoint._id, limit)).map(publicAttempt);
    },
  };
}

async function owned(store: WebhookEndpoints, accountId: string, id: string): Promise<WebhookEndpointDoc> {
  const doc = await store.get(accountId, id);
  if (!doc) throw noEndpoint(id);
  return doc;
}

/** What the endpoint's workflow must hear about: it holds the count, the overlaps and the deliveries. */
function createWorkflowRequests(deps: WebhookServiceDeps, store: WebhookEndpoints, auditLog: AuditLog) {
  const { events } = collections(deps.db);

  /** Signals the endpoint's workflow, starting it if it is not running. */
  async function tell(endpointId: string, signal: string, args: unknown[] = []) {
    try {
      await signalEndpoint(deps.client, endpointId, signal, args);
    } catch (err) {
      throw unavailable(err);
    }
  }

  return {
    async remove(accountId: string, id: string, audit: AuditContext): Promise<void> {
      const endpoint = await owned(store, accountId, id);
      const before = { url: endpoint.url, status: endpoint.status };
      const draft = deletionDraft(audit, accountId, 'webhook_endpoint.deleted', { type: 'webhook_endpoint', id }, before);
      if (!(await auditLog.deleting(draft, () => store.remove(accountId, id)))) throw noEndpoint(id);
      // Deleted first, so the fan-out stops at once; the workflow also ends by itself at its next
      // attempt (the endpoint is gone), so a failed signal here loses nothing.
      try {
        await deps.client.workflow.getHandle(webhookWorkflowId(id)).signal(WEBHOOK_SIGNALS.remove);
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError))
          deps.log.warn({ err, endpointId: id }, 'could not tell the webhook workflow about a deletion');
      }
    },

    /** Re-enables the endpoint and, given `recoverSince`, sends what it missed since then. */
    async enable(accountId: string, id: string, recoverSince: string | undefined, audit: AuditContext) {
      const since = recoverySince(recoverSince, Date.now());
      const before = await owned(store, accountId, id);
      // The workflow first: it holds the count and mirrors it back; the write below only makes the
      // answer (and the fan-out) see the new status at once.
      await tell(id, WEBHOOK_SIGNALS.enable);
      const doc = await store.enable(before, audit);
      if (!doc) throw noEndpoint(id);
      await auditLog.flush('endpoint', id);
      if (since !== undefined) {
        // Up to now, after the write: from here on the fan-out sends new events itself, and the
        // workflow drops an event that reaches it both ways.
        const span: RecoverRequest = { since, until: Date.now() };
        await tell(doc._id, WEBHOOK_SIGNALS.recover, [span]);
      }
      return publicEndpoint(doc);
    },

    /** A new signing secret; the old one keeps signing through the overlap. */
    async rotateSecret(accountId: string, id: string, audit: AuditContext) {
      let doc = await owned(store, accountId, id);
      // The workflow learns the rotation before it exists, so that no rotation is left without the
      // timer that ends its overlap; if the write below never happens, that timer changes nothing.
      const notice: RotationNotice = { rotationId: newId('rot'), overlapMs: SECRET_OVERLAP_MS };
      await tell(doc._id, WEBHOOK_SIGNALS.rotate, [notice]);
      const overlapEndsAt = new Date(Date.now() + SECRET_OVERLAP_MS);
      for (let i = 0; i < ROTATE_TRIES; i++) {
        const rotated = await store.rotate(doc, notice.rotationId, overlapEndsAt, audit);
        if (rotated) {
          await auditLog.flush('endpoint', id);
          return { ...publicEndpoint(rotated.doc), secret: rotated.secret };
        }
        doc = await owned(store, accountId, doc._id); // another rotation got there first: rotate after it
      }
      throw unavailable(new Error('rotation kept racing'));
    },

    /** Sends one past event of the account to the endpoint again. */
    async replay(accountId: string, id: string, eventId: string) {
      const endpoint = await owned(store, accountId, id);
      if (endpoint.status === 'disabled') {
        throw new ServiceError(
          'endpoint_disabled',
          `The endpoint ${endpoint._id} is disabled; re-enable it before replaying events to it.`,
        );
      }
      const event = await events.findOne({ _id: eventId, accountId });
      if (!event) throw new ServiceError('not_found', `There is no event ${eventId} on this account (events are kept 30 days).`);
      await tell(endpoint._id, WEBHOOK_SIGNALS.replay, [toEnvelope(eventOfDoc(event))]);
      return { eventId: event._id, endpointId: endpoint._id };
    },
  };
}

/** The webhook endpoints of accounts, as the account API uses them. */
export function createWebhookService(deps: WebhookServiceDeps) {
  const store = createWebhookEndpoints(deps.db, deps.secretKey);
  const auditLog = createAuditLog(deps.db);
  return { ...createEndpointRecordsService(deps, store, auditLog), ...createWorkflowRequests(deps, store, auditLog) };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
