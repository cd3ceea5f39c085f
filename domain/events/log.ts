//! The account's event log: every event recorded in `events`, newest first, with where each was
//! delivered (from the attempt and undelivered records), and its 30-day retention.
import { type Static, Type } from '@sinclair/typebox';
import type { Db } from 'mongodb';
import { EVENT_RETENTION_MS } from '../../contracts/event-kinds.js';
import { UNDELIVERED_REASONS } from '../../contracts/webhook-messages.js';
import { collections, newestFirst, type PageAfter } from '../../lib/mongo.js';
import { Id, NullableStringEnum, NullableTimestamp, StringEnum } from '../../lib/schema-types.js';
import type { EventDoc } from '../account-documents.js';

/** What became of one event at one endpoint: its type, and the `EventDelivery` schema of the OpenAPI document. */
export const EventDelivery = Type.Object(
  {
    endpointId: Id('whe', 'The endpoint.'),
    status: StringEnum(['delivered', 'failing', 'undelivered'], {
      description:
        '`delivered`: an attempt succeeded. `failing`: attempts failed and retries are due. `undelivered`: it ended unsent (`reason`).',
    }),
    attempts: Type.Integer({ minimum: 0, description: 'Attempts made.' }),
    lastAttemptAt: NullableTimestamp('When the last attempt was made; null when none was.'),
    reason: NullableStringEnum(UNDELIVERED_REASONS, {
      description: 'Why it ended unsent: the endpoint was disabled, 3 days of retries passed, or its queue was full. Null otherwise.',
    }),
  },
  { description: 'What became of the event at one endpoint.' },
);
export type EventDelivery = Static<typeof EventDelivery>;

export interface EventPageQuery {
  limit: number;
  /** Position of the last row of the previous page. */
  after?: PageAfter;
  type?: string;
}

export function createEventLog(db: Db) {
  const { events, webhookAttempts, webhookUndelivered } = collections(db);

  return {
    /** Up to `limit` events newest first, and whether more follow. */
    async page(accountId: string, q: EventPageQuery): Promise<{ rows: EventDoc[]; more: boolean }> {
      return newestFirst(events, { accountId, ...(q.type ? { event: q.type } : {}) }, q);
    },

    /** Each event's deliveries, per endpoint, from what the endpoint workflows recorded. */
    async deliveries(accountId: string, eventIds: string[]): Promise<Map<string, EventDelivery[]>> {
      const byEvent = new Map<string, Map<string, EventDelivery>>();
      const entry = (eventId: string, endpointId: string) => {
        const perEndpoint = byEvent.get(eventId) ?? byEvent.set(eventId, new Map()).get(eventId)!;
        return (
          perEndpoint.get(endpointId) ??
          perEndpoint.set(endpointId, { endpointId, status: 'failing', attempts: 0, lastAttemptAt: null, reason: null }).get(endpointId)!
        );
      };
      if (eventIds.length === 0) return new Map();
      const attempts = webhookAttempts.find(
        { accountId, eventId: { $in: eventIds } },
        { projection: { eventId: 1, endpointId: 1, success: 1, attemptedAt: 1 } },
      );
      for await (const a of attempts) {
        const d = entry(a.eventId, a.endpointId);
        d.attempts++;
        if (a.success) d.status = 'delivered';
        if (!d.lastAttemptAt || a.attemptedAt > d.lastAttemptAt) d.lastAttemptAt = a.attemptedAt;
      }
      for await (const u of webhookUndelivered.find({ accountId, eventId: { $in: eventIds } })) {
        const d = entry(u.eventId, u.endpointId);
        if (d.status === 'delivered') continue; // recovered or replayed later
        d.status = 'undelivered';
        d.reason = u.reason;
      }
      return new Map([...byEvent].map(([id, m]) => [id, [...m.values()]]));
    },

    /** Deletes events past the retention, as of `now` (the sweeper passes its workflow's time). */
    async sweep(now: number): Promise<number> {
      return (await events.deleteMany({ createdAt: { $lt: new Date(now - EVENT_RETENTION_MS) } })).deletedCount;
    },
  };
}

export type EventLog = ReturnType<typeof createEventLog>;
