//! The account's event types (docs/WEBHOOKS.md) and how long events are kept: the vocabulary the API,
//! its documents, the webhook messages and the workflows share. Pure data; recording events is
//! `domain/events/record.ts`.

export const EVENT_KINDS = [
  'credits.low',
  'credits.exhausted',
  'credits.granted',
  'credits.voided',
  'credits.recharge_failed',
  'api_key.created',
  'api_key.revoked',
  'webhook.test',
  'call.completed',
  'batch.completed',
  'batch.paused',
  'member.joined',
  'member.removed',
  'monitor.down',
  'monitor.degraded',
  'monitor.up',
  'monitor.changed',
  'monitor.paused',
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
