//! Webhook endpoints of an account and the record of their delivery attempts. The signing
//! secret is generated here, returned once, and stored only sealed with SECRET_KEY; so is a
//! rotated secret's predecessor while its overlap runs.
import { randomBytes } from 'node:crypto';
import type { Db, Filter } from 'mongodb';
import { DEFAULT_EVENT_TYPES, eventOfDoc, type EventKind, type SubscribableEventKind } from './events.js';
import { newId } from './ids.js';
import { collections } from './mongo.js';
import type { EventDoc, WebhookAttemptDoc, WebhookEndpointDoc } from './mongo-documents.js';
import { open, seal } from './sealed.js';
import { toEnvelope, type RecoverRequest, type UndeliveredReason, type WebhookEnvelope } from './webhook-messages.js';

export const SECRET_PREFIX = 'whsec_';

/** `whsec_` + 32 random bytes, base64url (CONTRACT.md). */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** The sealed secret is bound to its endpoint: a copied ciphertext does not open elsewhere. */
const secretAad = (endpointId: string) => `webhook-secret:${endpointId}`;

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

/** The endpoint as the account API shows it (never a secret). */
export function publicEndpoint(doc: WebhookEndpointDoc) {
  return {
    id: doc._id,
    url: doc.url,
    status: doc.status,
    consecutiveFailures: doc.consecutiveFailures,
    createdAt: doc.createdAt,
    disabledAt: doc.disabledAt,
    eventTypes: eventTypesOf(doc),
    previousSecretExpiresAt: doc.rotation?.overlapEndsAt ?? null,
  };
}

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

/** What the endpoint's workflow mirrors into the database after its state changes. */
export interface EndpointMirror {
  consecutiveFailures: number;
  disabled: boolean;
  /** Workflow time (ms) the endpoint was disabled; set when `disabled`. */
  disabledAt?: number;
  disabledReason?: string;
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

export function createWebhookEndpoints(db: Db, secretKey: Buffer) {
  const { webhookEndpoints: endpoints, webhookAttempts: attempts, webhookUndelivered: undelivered, events } = collections(db);

  return {
    async create(accountId: string, url: string, eventTypes: readonly SubscribableEventKind[] = DEFAULT_EVENT_TYPES): Promise<{ doc: WebhookEndpointDoc; secret: string }> {
      const id = newId('whe');
      const secret = newSigningSecret();
      const doc: WebhookEndpointDoc = {
        _id: id,
        accountId,
        url,
        secretSealed: seal(secretKey, secret, secretAad(id)),
        status: 'active',
        consecutiveFailures: 0,
        createdAt: new Date(),
        disabledAt: null,
        disabledReason: null,
        eventTypes: [...eventTypes],
      };
      await endpoints.insertOne(doc);
      return { doc, secret };
    },

    count: (accountId: string) => endpoints.countDocuments({ accountId }),

    list: (accountId: string) => endpoints.find({ accountId }).sort({ createdAt: 1, _id: 1 }).toArray(),

    /** The endpoint when it belongs to the account, else null. */
    get: (accountId: string, id: string) => endpoints.findOne({ _id: id, accountId }),

    byId: (id: string) => endpoints.findOne({ _id: id }),

    /** Active endpoints of the account that existed when `at` happened. */
    activeAt: (accountId: string, at: Date) =>
      endpoints.find({ accountId, status: 'active', createdAt: { $lte: at } }, { projection: { _id: 1 } }).toArray(),

    /**
     * The plaintext secrets that sign a delivery: the current one, and its predecessor while an
     * overlap runs. Only the delivery activity needs them, only in memory.
     */
    secretsOf: (doc: WebhookEndpointDoc) => ({
      current: open<string>(secretKey, doc.secretSealed, secretAad(doc._id)),
      previous: doc.previousSecretSealed ? open<string>(secretKey, doc.previousSecretSealed, secretAad(doc._id)) : null,
    }),

    /** Replaces the types delivered to the endpoint; null when it is not the account's. */
    setEventTypes: (accountId: string, id: string, eventTypes: readonly SubscribableEventKind[]) =>
      endpoints.findOneAndUpdate({ _id: id, accountId }, { $set: { eventTypes: [...eventTypes] } }, { returnDocument: 'after' }),

    /**
     * Gives the endpoint a new secret; the current one becomes the previous one and keeps signing
     * until `overlapEndsAt` (an older previous secret stops at once). Compare-and-set on the
     * current secret, so of two rotations at once one wins and the other answers null.
     */
    async rotate(doc: WebhookEndpointDoc, rotationId: string, overlapEndsAt: Date): Promise<{ doc: WebhookEndpointDoc; secret: string } | null> {
      const secret = newSigningSecret();
      const after = await endpoints.findOneAndUpdate(
        { _id: doc._id, accountId: doc.accountId, secretSealed: doc.secretSealed },
        {
          $set: {
            secretSealed: seal(secretKey, secret, secretAad(doc._id)),
            previousSecretSealed: doc.secretSealed,
            rotation: { id: rotationId, startedAt: new Date(), overlapEndsAt },
          },
        },
        { returnDocument: 'after' },
      );
      return after ? { doc: after, secret } : null;
    },

    /** Ends the overlap of rotation `rotationId` (the endpoint's workflow, when it is due); a later rotation is left alone. */
    endOverlap: (id: string, rotationId: string) =>
      endpoints.updateOne({ _id: id, 'rotation.id': rotationId }, { $set: { previousSecretSealed: null, rotation: null } }),

    /** Ends whatever overlap runs, now (the owner's request); null when the endpoint is not the account's. */
    endOverlapNow: (accountId: string, id: string) =>
      endpoints.findOneAndUpdate({ _id: id, accountId }, { $set: { previousSecretSealed: null, rotation: null } }, { returnDocument: 'after' }),

    /** Deletes the endpoint and its attempt log; false when there was none. */
    async remove(accountId: string, id: string): Promise<boolean> {
      const { deletedCount } = await endpoints.deleteOne({ _id: id, accountId });
      if (deletedCount === 0) return false;
      await attempts.deleteMany({ endpointId: id });
      await undelivered.deleteMany({ endpointId: id });
      return true;
    },

    /** Marks the endpoint active with a count of 0 (its workflow is told separately). */
    enable: (accountId: string, id: string) =>
      endpoints.findOneAndUpdate(
        { _id: id, accountId },
        { $set: { status: 'active', consecutiveFailures: 0, disabledAt: null, disabledReason: null } },
        { returnDocument: 'after' },
      ),

    async mirror(id: string, state: EndpointMirror): Promise<void> {
      const set = state.disabled
        ? {
            status: 'disabled' as const,
            consecutiveFailures: state.consecutiveFailures,
            disabledAt: new Date(state.disabledAt ?? Date.now()),
            disabledReason: state.disabledReason ?? null,
          }
        : { status: 'active' as const, consecutiveFailures: state.consecutiveFailures, disabledAt: null, disabledReason: null };
      await endpoints.updateOne({ _id: id }, { $set: set });
    },

    recordAttempt: (doc: Omit<WebhookAttemptDoc, '_id'>) => attempts.insertOne({ _id: newId('wha'), ...doc }),

    /**
     * Events of [since, until] that the endpoint should have received (its types, or a test of it;
     * none from before it existed) and never got delivered, oldest first, from after `after`.
     */
    async missedEvents(endpoint: WebhookEndpointDoc, span: RecoverRequest, after: [number, string] | undefined, limit: number): Promise<MissedPage> {
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
          ? { $and: [filter, { $or: [{ createdAt: { $gt: new Date(cursor[0]) } }, { createdAt: new Date(cursor[0]), _id: { $gt: cursor[1] } }] }] }
          : filter;
        const wanted = Math.min(SCAN_BATCH, limit - found.length);
        const batch = await events.find(page).sort({ createdAt: 1, _id: 1 }).limit(wanted).toArray();
        if (batch.length === 0) return { events: found, ...(cursor ? { after: cursor } : {}), exhausted: true };
        const delivered = new Set(
          (await attempts.find({ endpointId: endpoint._id, eventId: { $in: batch.map((e) => e._id) }, success: true }, { projection: { eventId: 1 } }).toArray()).map((a) => a.eventId),
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

export type WebhookEndpoints = ReturnType<typeof createWebhookEndpoints>;
