//! Webhook endpoints of an account: the store the account API, the fan-out and the endpoint's
//! activities share. The signing secret is generated here, returned once, and stored only sealed
//! with SECRET_KEY; so is a rotated secret's predecessor while its overlap runs. What was delivered
//! (attempts, undelivered events, missed ones) is `deliveries.ts`, part of the same store.
import { randomBytes } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import type { Db } from 'mongodb';
import { DEFAULT_EVENT_TYPES, SUBSCRIBABLE_EVENT_KINDS, type SubscribableEventKind } from '../../contracts/event-kinds.js';
import { newId } from '../../lib/ids.js';
import { collections, viewOf } from '../../lib/mongo.js';
import { Id, NullableTimestamp, StringEnum, Timestamp } from '../../lib/schema-types.js';
import type { WebhookEndpointDoc } from './documents.js';
import { auditDraft, creationDrafts, type AuditContext } from '../audit/index.js';
import { open, seal } from '../../lib/sealed.js';
import { createDeliveryRecords } from './deliveries.js';
import { eventTypesOf } from './subscriptions.js';

export const SECRET_PREFIX = 'whsec_';

/** `whsec_` + 32 random bytes, base64url (docs/API.md). */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** A signing secret as the answers that show it once describe it. */
export const WebhookSecret = Type.String({
  pattern: '^whsec_[0-9A-Za-z_-]{43}$',
  description: 'Signing secret of the deliveries (`whsec_` + 32 random bytes, base64url).',
  examples: ['whsec_q7Vd0rN3bX9kPz2Lm5Tf8Wc1Yh4Js6Ga0Ue3Ri7Ko2M'],
});

/** The sealed secret is bound to its endpoint: a copied ciphertext does not open elsewhere. */
const secretAad = (endpointId: string) => `webhook-secret:${endpointId}`;

/** An endpoint as the account API shows it (never a secret): its type, and the `WebhookEndpoint` schema of the OpenAPI document. */
export const WebhookEndpoint = Type.Object(
  {
    id: Id('whe', 'Endpoint id.'),
    url: Type.String({ format: 'uri', description: 'Where events are posted.', examples: ['https://hooks.example.com/utility-tools'] }),
    status: StringEnum(['active', 'disabled'], { description: '`disabled` after 20 failed attempts in a row, until re-enabled.' }),
    consecutiveFailures: Type.Integer({ minimum: 0, description: 'Failed attempts in a row; any success resets it to 0.' }),
    createdAt: Timestamp('When the endpoint was registered.'),
    disabledAt: NullableTimestamp('When the endpoint was disabled; null while active.'),
    eventTypes: Type.Array(StringEnum(SUBSCRIBABLE_EVENT_KINDS), {
      description: 'The event types delivered to it (`webhook.test` always is, on request).',
      examples: [[...DEFAULT_EVENT_TYPES]],
    }),
    previousSecretExpiresAt: NullableTimestamp(
      "While a rotated secret's overlap runs: when the previous secret stops signing (deliveries carry both signatures until then). Null otherwise.",
    ),
  },
  { description: 'A webhook endpoint.' },
);
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

export function publicEndpoint(doc: WebhookEndpointDoc): WebhookEndpoint {
  return {
    ...viewOf(doc, ['url', 'status', 'consecutiveFailures', 'createdAt', 'disabledAt']),
    eventTypes: eventTypesOf(doc),
    previousSecretExpiresAt: doc.rotation?.overlapEndsAt ?? null,
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

/** The endpoints and their delivery records, as one store. */
export function createWebhookEndpoints(db: Db, secretKey: Buffer) {
  return { ...createEndpointRecords(db, secretKey), ...createDeliveryRecords(db) };
}

export type WebhookEndpoints = ReturnType<typeof createWebhookEndpoints>;

function createEndpointRecords(db: Db, secretKey: Buffer) {
  const { webhookEndpoints: endpoints, webhookAttempts: attempts, webhookUndelivered: undelivered } = collections(db);

  return {
    async create(
      accountId: string,
      url: string,
      eventTypes: readonly SubscribableEventKind[] = DEFAULT_EVENT_TYPES,
      audit?: AuditContext,
    ): Promise<{ doc: WebhookEndpointDoc; secret: string }> {
      const id = newId('whe');
      const shown = { url, eventTypes: [...eventTypes] };
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
        // Written with the endpoint (domain/audit/log.ts): never its secret.
        ...creationDrafts(audit, accountId, 'webhook_endpoint.created', { type: 'webhook_endpoint', id }, shown, ['url', 'eventTypes']),
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

    /**
     * Replaces the types delivered to the endpoint, pinned to the types `before` had (the entry
     * says what they were); null when it is not the account's or they changed meanwhile.
     */
    setEventTypes: (before: WebhookEndpointDoc, eventTypes: readonly SubscribableEventKind[], audit: AuditContext) =>
      endpoints.findOneAndUpdate(
        { _id: before._id, accountId: before.accountId, eventTypes: before.eventTypes ?? { $exists: false } },
        {
          $set: { eventTypes: [...eventTypes] },
          $push: {
            auditDrafts: auditDraft(
              audit,
              before.accountId,
              'webhook_endpoint.updated',
              { type: 'webhook_endpoint', id: before._id },
              { eventTypes: [before.eventTypes ?? null, [...eventTypes]] },
            ),
          },
        },
        { returnDocument: 'after' },
      ),

    /**
     * Gives the endpoint a new secret; the current one becomes the previous one and keeps signing
     * until `overlapEndsAt` (an older previous secret stops at once). Compare-and-set on the
     * current secret, so of two rotations at once one wins and the other answers null.
     */
    async rotate(
      doc: WebhookEndpointDoc,
      rotationId: string,
      overlapEndsAt: Date,
      audit: AuditContext,
    ): Promise<{ doc: WebhookEndpointDoc; secret: string } | null> {
      const secret = newSigningSecret();
      const after = await endpoints.findOneAndUpdate(
        { _id: doc._id, accountId: doc.accountId, secretSealed: doc.secretSealed },
        {
          $set: {
            secretSealed: seal(secretKey, secret, secretAad(doc._id)),
            previousSecretSealed: doc.secretSealed,
            rotation: { id: rotationId, startedAt: new Date(), overlapEndsAt },
          },
          // The rotation's id and overlap, never a secret.
          $push: {
            auditDrafts: auditDraft(
              audit,
              doc.accountId,
              'webhook_endpoint.secret_rotated',
              { type: 'webhook_endpoint', id: doc._id },
              {
                rotation: [doc.rotation?.id ?? null, rotationId],
                previousSecretUntil: [null, overlapEndsAt],
              },
            ),
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
    endOverlapNow: (accountId: string, id: string, audit: AuditContext) =>
      endpoints.findOneAndUpdate(
        { _id: id, accountId },
        {
          $set: { previousSecretSealed: null, rotation: null },
          $push: {
            auditDrafts: auditDraft(
              audit,
              accountId,
              'webhook_endpoint.previous_secret_ended',
              { type: 'webhook_endpoint', id },
              { previousSecret: ['kept', 'ended'] },
            ),
          },
        },
        { returnDocument: 'after' },
      ),

    /** Deletes the endpoint and its attempt log; false when there was none. */
    async remove(accountId: string, id: string): Promise<boolean> {
      const { deletedCount } = await endpoints.deleteOne({ _id: id, accountId });
      if (deletedCount === 0) return false;
      await attempts.deleteMany({ endpointId: id });
      await undelivered.deleteMany({ endpointId: id });
      return true;
    },

    /** Marks the endpoint active with a count of 0 (its workflow is told separately). */
    enable: (before: WebhookEndpointDoc, audit: AuditContext) =>
      endpoints.findOneAndUpdate(
        { _id: before._id, accountId: before.accountId },
        {
          $set: { status: 'active', consecutiveFailures: 0, disabledAt: null, disabledReason: null },
          $push: {
            auditDrafts: auditDraft(
              audit,
              before.accountId,
              'webhook_endpoint.enabled',
              { type: 'webhook_endpoint', id: before._id },
              {
                status: [before.status, 'active'],
                consecutiveFailures: [before.consecutiveFailures, 0],
              },
            ),
          },
        },
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
  };
}
