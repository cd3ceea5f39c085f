//! Which events an endpoint receives: the types it chose (or the default ones), and a test event
//! only when it names the endpoint.
import type { Filter } from 'mongodb';
import { DEFAULT_EVENT_TYPES, type EventKind, type SubscribableEventKind } from '../../contracts/event-kinds.js';
import type { WebhookEndpointDoc } from './documents.js';

/** The event types delivered to an endpoint (those registered before endpoints could choose get the default). */
export const eventTypesOf = (doc: Pick<WebhookEndpointDoc, 'eventTypes'>): SubscribableEventKind[] =>
  (doc.eventTypes as SubscribableEventKind[] | undefined) ?? [...DEFAULT_EVENT_TYPES];

/**
 * Endpoints an event goes to, as a query: those subscribed to its type (an endpoint without a
 * list has the default types); `webhook.test` only to the endpoint it names.
 */
export function subscribedTo(event: { event: EventKind; data: Record<string, unknown> }): Filter<WebhookEndpointDoc> {
  if (event.event === 'webhook.test') return { _id: String(event.data.endpointId) };
  if (!DEFAULT_EVENT_TYPES.includes(event.event)) return { eventTypes: event.event };
  return { $or: [{ eventTypes: event.event }, { eventTypes: { $exists: false } }] };
}
