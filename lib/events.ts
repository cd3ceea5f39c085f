//! Domain events of an account (credits.*, api_key.*, call.completed, webhook.test), recorded in
//! `events` and kept for the event log. Recording is idempotent by event id; webhook delivery
//! fans them out from there to the endpoints subscribed to each type.
import type { Db } from 'mongodb';
import { collections } from './mongo.js';
import type { EventDoc } from './mongo-documents.js';
import { newId } from './ids.js';

export const EVENT_KINDS = [
  'credits.low',
  'credits.exhausted',
  'credits.granted',
  'api_key.created',
  'api_key.revoked',
  'webhook.test',
  'call.completed',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Types an endpoint may subscribe to: `webhook.test` goes only to the endpoint it tests, whatever it chose. */
export const SUBSCRIBABLE_EVENT_KINDS = EVENT_KINDS.filter((k) => k !== 'webhook.test');
export type SubscribableEventKind = Exclude<EventKind, 'webhook.test'>;

/**
 * What an endpoint receives when its owner chose nothing: every type but `call.completed`, which
 * only asynchronous callers want (and which an endpoint registered before it existed never got).
 */
export const DEFAULT_EVENT_TYPES: readonly SubscribableEventKind[] = SUBSCRIBABLE_EVENT_KINDS.filter((k) => k !== 'call.completed');

/** The event log keeps events (and recovery reaches back) this long. */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export interface DomainEvent {
  id: string;
  accountId: string;
  event: EventKind;
  createdAt: Date;
  data: Record<string, unknown>;
}

/** An event as `events` stores it, back as the event it is (the fan-out's re-send, a replay, a recovery read it so). */
export function eventOfDoc(doc: EventDoc): DomainEvent {
  return { id: doc._id, accountId: doc.accountId, event: doc.event as EventKind, createdAt: doc.createdAt, data: doc.data };
}

export function newEvent(accountId: string, event: EventKind, data: Record<string, unknown>, now = new Date()): DomainEvent {
  return { id: newId('evt'), accountId, event, createdAt: now, data };
}

export type EventSink = (event: DomainEvent) => Promise<void>;

/** Records events in MongoDB; `onRecorded` (webhook fan-out) runs after each new one. */
export function createEventRecorder(db: Db, onRecorded?: EventSink) {
  const { events } = collections(db);
  return async function record(e: DomainEvent): Promise<void> {
    await events.updateOne(
      { _id: e.id },
      { $setOnInsert: { accountId: e.accountId, event: e.event, createdAt: e.createdAt, data: e.data } },
      { upsert: true },
    );
    await onRecorded?.(e);
  };
}

export type EventRecorder = ReturnType<typeof createEventRecorder>;
