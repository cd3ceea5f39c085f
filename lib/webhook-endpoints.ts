//! Webhook endpoints of an account and the record of their delivery attempts. The signing
//! secret is generated here, returned once, and stored only sealed with SECRET_KEY.
import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { newId } from './ids.js';
import { collections, type WebhookAttemptDoc, type WebhookEndpointDoc } from './mongo.js';
import { open, seal } from './sealed.js';
import type { UndeliveredReason, WebhookEnvelope } from './webhook-messages.js';

export const SECRET_PREFIX = 'whsec_';

/** `whsec_` + 32 random bytes, base64url (CONTRACT.md). */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** The sealed secret is bound to its endpoint: a copied ciphertext does not open elsewhere. */
const secretAad = (endpointId: string) => `webhook-secret:${endpointId}`;

/** The endpoint as the account API shows it (never the secret). */
export function publicEndpoint(doc: WebhookEndpointDoc) {
  return {
    id: doc._id,
    url: doc.url,
    status: doc.status,
    consecutiveFailures: doc.consecutiveFailures,
    createdAt: doc.createdAt,
    disabledAt: doc.disabledAt,
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

export function createWebhookEndpoints(db: Db, secretKey: Buffer) {
  const { webhookEndpoints: endpoints, webhookAttempts: attempts, webhookUndelivered: undelivered } = collections(db);

  return {
    async create(accountId: string, url: string): Promise<{ doc: WebhookEndpointDoc; secret: string }> {
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

    /** The plaintext signing secret: only the delivery activity needs it, only in memory. */
    secretOf: (doc: WebhookEndpointDoc) => open<string>(secretKey, doc.secretSealed, secretAad(doc._id)),

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
