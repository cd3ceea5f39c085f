//! Domain events of an account (credits.*, api_key.*, call.completed, webhook.test), recorded in
//! `events` and kept for the event log. Recording is idempotent by event id; webhook delivery
//! fans them out from there to the endpoints subscribed to each type. The types themselves are
//! `contracts/event-kinds.ts`.
import type { Db } from 'mongodb';
import type { EventKind } from '../../contracts/event-kinds.js';
import { newId } from '../../lib/ids.js';
import { collections } from '../../lib/mongo.js';
import { withTraceparent } from '../../lib/trace-context.js';
import type { EventDoc } from '../account-documents.js';

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
      // The cause's trace (tracing on, sampled): each delivery of the event is a trace linked to it.
      { $setOnInsert: { accountId: e.accountId, event: e.event, createdAt: e.createdAt, data: e.data, ...withTraceparent() } },
      { upsert: true },
    );
    await onRecorded?.(e);
  };
}

export type EventRecorder = ReturnType<typeof createEventRecorder>;

/** The traceparent of what caused an event, when that was traced (read only by a traced process). */
export async function eventCause(db: Db, eventId: string): Promise<string | undefined> {
  const doc = await collections(db).events.findOne({ _id: eventId }, { projection: { traceparent: 1 } });
  return doc?.traceparent;
}
