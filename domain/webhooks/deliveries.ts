//! The delivery records of webhook endpoints: every attempt, the deliveries that ended unsent,
//! and the events an endpoint missed (what a recovery sends), read from `events` against them.
import type { Db, Filter } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import type { EventDoc } from '../account-documents.js';
import type { WebhookAttemptDoc, WebhookEndpointDoc } from './documents.js';
import { newId } from '../../lib/ids.js';
import { toEnvelope, type RecoverRequest, type UndeliveredReason, type WebhookEnvelope } from '../../contracts/webhook-messages.js';
import { eventOfDoc } from '../events/index.js';
import { eventTypesOf } from './subscriptions.js';

export function publicAttempt(doc: WebhookAttemptDoc) {
  return {
    id: doc._id,
    eventId: doc.eventId,
    event: doc.event,
    attemptedAt: doc.attemptedAt,
    statusCode: doc.statusCode,
    durationMs: doc.durationMs,
    success: doc.success,
    error: doc.error,
    trigger: doc.trigger ?? 'event',
  };
}

/** A page of events an endpoint missed: what to deliver, where the next page starts, whether that was the last. */
export interface MissedPage {
  events: WebhookEnvelope[];
  after?: [number, string];
  exhausted: boolean;
}

/** Events read per query while looking for missed ones; a page reads at most MAX_SCANS of these. */
const SCAN_BATCH = 200;
const MAX_SCANS = 10;

export function createDeliveryRecords(db: Db) {
  const { webhookAttempts: attempts, webhookUndelivered: undelivered, events } = collections(db);

  return {
    recordAttempt: (doc: Omit<WebhookAttemptDoc, '_id'>) => attempts.insertOne({ _id: newId('wha'), ...doc }),

    /**
     * Events of [since, until] that the endpoint should have received (its types, or a test of it;
     * none from before it existed) and never got delivered, oldest first, from after `after`.
     */
    async missedEvents(
      endpoint: WebhookEndpointDoc,
      span: RecoverRequest,
      after: [number, string] | undefined,
      limit: number,
    ): Promise<MissedPage> {
      const types: string[] = eventTypesOf(endpoint);
      const filter: Filter<EventDoc> = {
        accountId: endpoint.accountId,
        createdAt: { $gte: new Date(Math.max(span.since, endpoint.createdAt.getTime())), $lte: new Date(span.until) },
        $or: [{ event: { $in: types } }, { event: 'webhook.test', 'data.endpointId': endpoint._id }],
      };
      const found: WebhookEnvelope[] = [];
      let cursor = after;
      for (let scan = 0; scan < MAX_SCANS && found.length < limit; scan++) {
        const page = cursor
          ? {
              $and: [
                filter,
                { $or: [{ createdAt: { $gt: new Date(cursor[0]) } }, { createdAt: new Date(cursor[0]), _id: { $gt: cursor[1] } }] },
              ],
            }
          : filter;
        const wanted = Math.min(SCAN_BATCH, limit - found.length);
        const batch = await events.find(page).sort({ createdAt: 1, _id: 1 }).limit(wanted).toArray();
        if (batch.length === 0) return { events: found, ...(cursor ? { after: cursor } : {}), exhausted: true };
        const delivered = new Set(
          (
            await attempts
              .find({ endpointId: endpoint._id, eventId: { $in: batch.map((e) => e._id) }, success: true }, { projection: { eventId: 1 } })
              .toArray()
          ).map((a) => a.eventId),
        );
        for (const e of batch) {
          if (!delivered.has(e._id)) found.push(toEnvelope(eventOfDoc(e)));
        }
        const last = batch.at(-1)!;
        cursor = [last.createdAt.getTime(), last._id];
        if (batch.length < wanted) return { events: found, after: cursor, exhausted: true };
      }
      return { events: found, ...(cursor ? { after: cursor } : {}), exhausted: false };
    },

    /** Attempts newest first. */
    attempts: (endpointId: string, limit: number) =>
      attempts.find({ endpointId }).sort({ attemptedAt: -1, _id: -1 }).limit(limit).toArray(),

    /** Records deliveries that ended unsent; idempotent per endpoint and event. */
    async recordUndelivered(
      endpoint: Pick<WebhookEndpointDoc, '_id' | 'accountId'>,
      items: ReadonlyArray<{ event: WebhookEnvelope; attempts: number }>,
      reason: UndeliveredReason,
      endedAt: Date,
    ): Promise<void> {
      for (const item of items) {
        await undelivered.updateOne(
          { _id: `${endpoint._id}:${item.event.id}` },
          {
            $setOnInsert: {
              endpointId: endpoint._id,
              accountId: endpoint.accountId,
              eventId: item.event.id,
              event: item.event.event,
              reason,
              attempts: item.attempts,
              endedAt,
            },
          },
          { upsert: true },
        );
      }
    },

    undelivered: (endpointId: string) => undelivered.find({ endpointId }).sort({ endedAt: -1 }).toArray(),
  };
}
