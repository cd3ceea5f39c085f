//! What travels between the fan-out, the account API, the per-endpoint workflow and its
//! activities: the event envelope, the signal names and their arguments, the workflow's input.
//! Pure data, safe inside the workflow sandbox. Nothing here ever holds a signing secret:
//! activities read the secrets from the database.
import type { EventKind } from './event-kinds.js';

/** The body of a delivery (docs/WEBHOOKS.md): `createdAt` is ISO 8601 with the offset `+00:00`. */
export interface WebhookEnvelope {
  id: string;
  event: EventKind;
  createdAt: string;
  data: Record<string, unknown>;
}

/** `2026-01-02T03:04:05.678+00:00`: ISO 8601 in UTC, offset written out as the contract says. */
export function isoWithOffset(date: Date): string {
  return date.toISOString().replace(/Z$/, '+00:00');
}

export function toEnvelope(e: { id: string; event: EventKind; createdAt: Date; data: Record<string, unknown> }): WebhookEnvelope {
  return { id: e.id, event: e.event, createdAt: isoWithOffset(e.createdAt), data: e.data };
}

/** Signal names of the `webhookEndpoint` workflow. */
export const WEBHOOK_SIGNALS = {
  /** An event to deliver (`WebhookEnvelope`); repeats of an event id are ignored. */
  event: 'webhookEvent',
  /** Events to deliver (`WebhookEnvelope[]`), in the order they reached the fan-out. */
  events: 'webhookEvents',
  /** The owner re-enabled the endpoint: deliveries resume, the failure count is 0. */
  enable: 'webhookEnable',
  /** The endpoint was deleted: the workflow ends. */
  remove: 'webhookRemove',
  /** The owner asked to send one past event again (`WebhookEnvelope`): a new attempt, signed afresh. */
  replay: 'webhookReplay',
  /** Deliver, in order, every event of a time span the endpoint never got (`RecoverRequest`). */
  recover: 'webhookRecover',
  /** The signing secret was rotated (`RotationNotice`): the workflow ends the overlap when it is due. */
  rotate: 'webhookRotate',
} as const;

/** Argument of the `recover` signal: events created in [since, until] (epoch ms) that the endpoint never got. */
export interface RecoverRequest {
  since: number;
  until: number;
}

/** Argument of the `rotate` signal. */
export interface RotationNotice {
  /** The rotation's id, as stored with the endpoint: ending the overlap of an older rotation changes nothing. */
  rotationId: string;
  /** How long both secrets sign, from when the workflow receives this. */
  overlapMs: number;
}

/** Where a recovery stands: the span it covers and the last event already taken from it. */
export interface RecoveryState extends RecoverRequest {
  /** `[createdAt ms, event id]` of the last event taken; the next page starts after it. */
  after?: [number, string];
  /** Every page was read; the recovery ends when its last delivery has had its first attempt. */
  exhausted: boolean;
}

/** Why an attempt was made, when not for the event's arrival (recorded with the attempt). */
export type AttemptTrigger = 'replay' | 'recovery';

/** Query name: the workflow's state (`WebhookEndpointState`), for operators and tests. */
export const WEBHOOK_STATE_QUERY = 'webhookState';

export const webhookWorkflowId = (endpointId: string) => `webhook-endpoint-${endpointId}`;

/** One event still to be delivered to the endpoint. */
export interface PendingDelivery {
  event: WebhookEnvelope;
  /** Workflow time (ms) the event reached the endpoint's workflow; the 3-day limit counts from here. */
  receivedAt: number;
  /** Attempts made so far (each one counted toward the endpoint's consecutive failures). */
  attempts: number;
  /** Workflow time (ms) of the next attempt. */
  nextAttemptAt: number;
  /** Set for a delivery the owner asked for (replay) or a recovered one; absent for an arrival. */
  trigger?: AttemptTrigger;
}

/** What a run hands the next one across continue-as-new. */
export interface CarriedEndpointState {
  pending: PendingDelivery[];
  consecutiveFailures: number;
  disabled: boolean;
  /** Event ids already received, with the time, so that a re-sent event is not delivered twice. */
  seen: Array<[eventId: string, receivedAt: number]>;
  /**
   * Rotations whose overlap runs, with when (workflow ms) it ends. Usually one; two only when
   * rotations raced, and the one the database kept is ended at its time either way.
   */
  overlaps?: Array<{ rotationId: string; until: number }>;
  /** A recovery under way. */
  recovery?: RecoveryState;
}

export interface WebhookEndpointInput {
  endpointId: string;
  /** Absent on a fresh start: the workflow then reads the endpoint's status from the database. */
  carried?: CarriedEndpointState;
  /**
   * Continue-as-new once the run's history has this many events (or Temporal suggests it).
   * @default 2000. Tests lower it to see a run hand over.
   */
  historyLimit?: number;
  /** Runs before this one in the endpoint's continue-as-new chain. @default 0 */
  previousRuns?: number;
  /**
   * Attempts at once, carried to later runs. @default the core worker's WEBHOOK_ENDPOINT_CONCURRENCY,
   * read when each run starts. The bench sets 1 for its baseline.
   */
  concurrency?: number;
}

export interface WebhookEndpointState {
  consecutiveFailures: number;
  disabled: boolean;
  pending: number;
  inFlight: number;
  /** Attempts the run may have in flight while healthy; absent in a run begun before deliveries ran concurrently. */
  concurrency?: number;
  /** Run number within this endpoint's chain of continue-as-new runs (1 for the first). */
  run: number;
  /** Workflow time (ms) the next rotation overlap ends; absent when none runs. */
  overlapUntil?: number;
  /** True while a recovery has events left to send. */
  recovering: boolean;
}

/** Why a delivery ended without reaching the receiver; recorded in `webhook_undelivered`. */
export const UNDELIVERED_REASONS = ['endpoint_disabled', 'expired', 'backlog_full'] as const;
export type UndeliveredReason = (typeof UNDELIVERED_REASONS)[number];
