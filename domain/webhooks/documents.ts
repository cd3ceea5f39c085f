//! The documents of webhooks: endpoints (their secrets sealed), attempts, undelivered events.
import type { Collection } from 'mongodb';
import type { AuditDraft } from '../account-documents.js';
import type { UndeliveredReason } from '../../contracts/webhook-messages.js';

declare module '../../lib/mongo.js' {
  /** Each collection of this file's documents (lib/mongo.ts names them). */
  interface Collections {
    webhookEndpoints: Collection<WebhookEndpointDoc>;
    webhookAttempts: Collection<WebhookAttemptDoc>;
    webhookUndelivered: Collection<WebhookUndeliveredDoc>;
  }
}

export interface WebhookEndpointDoc {
  _id: string;
  accountId: string;
  url: string;
  /** The signing secret sealed with SECRET_KEY (lib/sealed.ts), bound to the endpoint id. */
  secretSealed: string;
  status: 'active' | 'disabled';
  /** Mirror of the count the endpoint's workflow holds (the workflow is the authority). */
  consecutiveFailures: number;
  createdAt: Date;
  disabledAt: Date | null;
  disabledReason: string | null;
  /** Event types delivered to it; absent on endpoints registered before they could choose (DEFAULT_EVENT_TYPES then). */
  eventTypes?: string[];
  /** While a rotation's overlap runs: the secret before it, sealed like `secretSealed`. */
  previousSecretSealed?: string | null;
  /** The rotation whose overlap runs: the endpoint's workflow ends it by this id when the window closes. */
  rotation?: { id: string; startedAt: Date; overlapEndsAt: Date } | null;
  /** Audit entries of changes to it, written with the change, until they are in the chain. */
  auditDrafts?: AuditDraft[];
}

export interface WebhookAttemptDoc {
  _id: string;
  endpointId: string;
  accountId: string;
  eventId: string;
  event: string;
  /** 1 for the first attempt of this event at this endpoint. */
  attempt: number;
  attemptedAt: Date;
  /** Response status, or null when no response came (timeout, refused, target not allowed). */
  statusCode: number | null;
  durationMs: number;
  success: boolean;
  error: string | null;
  /** Why this attempt was made, when not for the event's first arrival: the owner asked to replay it, or to recover missed events. */
  trigger?: 'replay' | 'recovery';
}

/** A delivery that ended without reaching the receiver, and why. `_id` is `<endpointId>:<eventId>`. */
export interface WebhookUndeliveredDoc {
  _id: string;
  endpointId: string;
  accountId: string;
  eventId: string;
  event: string;
  reason: UndeliveredReason;
  attempts: number;
  endedAt: Date;
}
