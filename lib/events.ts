//! Domain events of an account (credits.*, api_key.*, webhook.test), recorded in `events`.
//! Recording is idempotent by event id; webhook delivery fans them out from there.
import type { Db } from 'mongodb';
import { collections } from './mongo.js';
import { newId } from './ids.js';

export const EVENT_KINDS = [
  'credits.low',
  'credits.exhausted',
  'credits.granted',
  'api_key.created',
  'api_key.revoked',
  'webhook.test',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface DomainEvent {
  id: string;
  accountId: string;
  event: EventKind;
  createdAt: Date;
  data: Record<string, unknown>;
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
