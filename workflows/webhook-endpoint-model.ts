//! What a webhook endpoint's workflow holds and what reaches it: the endpoint's state in a run,
//! what arrives (events, the owner's requests, attempts' outcomes), the bookkeeping owed to the
//! database and the limits of a run. The changes to them are `webhook-endpoint-state.ts`.
import type { DeliverResult } from '../activities/core/webhooks.js';
import type {
  CarriedEndpointState,
  PendingDelivery,
  RecoverRequest,
  RotationNotice,
  UndeliveredReason,
  WebhookEnvelope,
} from '../contracts/webhook-messages.js';
import { LEGACY_MAX_PENDING, MAX_PENDING } from '../contracts/webhook-policy.js';

/** What one attempt came to; `not_attempted` when our side failed (the activity did not answer). */
export type Outcome = DeliverResult | { outcome: 'not_attempted' };

/** An attempt's outcome in a batch: a received answer (or none) carries when the attempt ended (ms). */
export type TimedOutcome = Outcome & { endedAt?: number };

/** Attempts started together, as one activity. */
export interface Batch {
  /** Workflow time (ms) the batch was started: none of its attempts ends before. */
  startedAt: number;
  deliveries: PendingDelivery[];
}

/** An outcome returned whose place in the count waits for an older batch still out. */
export interface Ended {
  endedAt: number;
  success: boolean;
}

/** The owner's requests, applied by the loop in arrival order. */
export type Request =
  | { kind: 'replay'; event: WebhookEnvelope }
  | { kind: 'recover'; span: RecoverRequest }
  | { kind: 'rotate'; notice: RotationNotice };

/** What the signals bring; signals only queue it, the loop applies it. */
export type Arrival = { kind: 'event'; event: WebhookEnvelope } | { kind: 'enable' } | { kind: 'remove' } | Request;

/** Arrived and not yet applied. Exists before the endpoint's state is loaded: signals may come first. */
export interface Inbox {
  events: WebhookEnvelope[];
  requests: Request[];
  enableRequested: boolean;
  /** The endpoint was deleted: the workflow ends. */
  removed: boolean;
}

export type UndeliveredBatch = { items: Array<{ event: WebhookEnvelope; attempts: number }>; reason: UndeliveredReason; at: number };

/** What the database is owed, written in order by the workflow's bookkeeping loop. */
export interface Books {
  /** The mirror of the count and status is out of date. */
  mirrorWanted: boolean;
  undelivered: UndeliveredBatch[];
  /** Rotations whose overlap is over: the previous secret is dropped from the database. */
  overlapsEnded: string[];
  /** A write is running. */
  writing: boolean;
}

/** How much a run may do at once and hold. */
export interface DeliveryLimits {
  /**
   * Attempts at once (WEBHOOK_ENDPOINT_CONCURRENCY), fewer as failures near the disable
   * (`inFlightLimit`). Absent in a run begun before deliveries ran concurrently: it keeps the old
   * rule until it continues as new, so its history replays.
   */
  concurrency?: number;
  /** Deliveries held; past it the oldest ends undelivered. */
  maxPending: number;
}

/** The limits of a run begun before deliveries ran concurrently. */
export const LEGACY_LIMITS: DeliveryLimits = { maxPending: LEGACY_MAX_PENDING };

/** The limits of a run at `concurrency`. */
export const concurrentLimits = (concurrency: number): DeliveryLimits => ({ concurrency, maxPending: MAX_PENDING });

export interface Endpoint {
  /** What a run hands the next one. */
  state: CarriedEndpointState;
  limits: DeliveryLimits;
  inbox: Inbox;
  books: Books;
  /** Event ids with an attempt running. */
  inFlight: Set<string>;
  /** Batches out (runs that send attempts in batches). */
  batches: Set<Batch>;
  /** Outcomes returned and not yet counted, in the order they ended. */
  ended: Ended[];
  seenIds: Set<string>;
  /** Workflow time (ms) this run disabled the endpoint. */
  disabledAt?: number;
  /** A page of missed events is being read. */
  fetching: boolean;
}

/** Logged by the workflow when an attempt disables the endpoint. */
export interface DisabledNotice {
  consecutiveFailures: number;
  pending: number;
}
