//! Component schemas of the webhook endpoints' answers, their delivery attempts and the event log.
import { DEFAULT_EVENT_TYPES, SUBSCRIBABLE_EVENT_KINDS } from '../../contracts/event-kinds.js';
import { EventDelivery } from '../../domain/events/index.js';
import { dateTime, id, nextCursor, nullableDateTime, record, ref, type JsonSchema } from './schema-parts.js';

const endpointFields = {
  id: id('whe', 'Endpoint id.'),
  url: { type: 'string', format: 'uri', description: 'Where events are posted.', examples: ['https://hooks.example.com/utility-tools'] },
  status: { type: 'string', enum: ['active', 'disabled'], description: '`disabled` after 20 failed attempts in a row, until re-enabled.' },
  consecutiveFailures: { type: 'integer', minimum: 0, description: 'Failed attempts in a row; any success resets it to 0.' },
  createdAt: dateTime('When the endpoint was registered.'),
  disabledAt: nullableDateTime('When the endpoint was disabled; null while active.'),
  eventTypes: {
    type: 'array',
    items: { type: 'string', enum: [...SUBSCRIBABLE_EVENT_KINDS] },
    description: 'The event types delivered to it (`webhook.test` always is, on request).',
    examples: [[...DEFAULT_EVENT_TYPES]],
  },
  previousSecretExpiresAt: nullableDateTime(
    "While a rotated secret's overlap runs: when the previous secret stops signing (deliveries carry both signatures until then). Null otherwise.",
  ),
};

const secret = {
  type: 'string',
  pattern: '^whsec_[0-9A-Za-z_-]{43}$',
  description: 'Signing secret of the deliveries (`whsec_` + 32 random bytes, base64url).',
  examples: ['whsec_q7Vd0rN3bX9kPz2Lm5Tf8Wc1Yh4Js6Ga0Ue3Ri7Ko2M'],
};

export const WEBHOOK_ENDPOINT_SCHEMAS: Record<string, JsonSchema> = {
  WebhookEndpoint: record('A webhook endpoint.', endpointFields),
  NewWebhookEndpoint: record('A new webhook endpoint. `secret` is shown only in this answer: store it now.', {
    ...endpointFields,
    secret,
  }),
  RotatedWebhookEndpoint: record(
    'The endpoint with its new signing secret, shown only in this answer. The previous secret keeps signing until `previousSecretExpiresAt`.',
    { ...endpointFields, secret },
  ),
  WebhookReplayQueued: record('The event is queued for a new delivery attempt to the endpoint.', {
    eventId: id('evt', 'The event replayed.'),
    endpointId: id('whe', 'The endpoint it goes to.'),
  }),
  WebhookTestSent: record('The test event was queued for delivery.', {
    eventId: id('evt', 'Id of the `webhook.test` event.'),
  }),
  WebhookAttempt: record('One delivery attempt.', {
    id: id('wha', 'Attempt id.'),
    eventId: id('evt', 'The event delivered.'),
    event: ref('WebhookEventKind'),
    attemptedAt: dateTime('When the attempt was made.'),
    statusCode: { type: ['integer', 'null'], description: "The endpoint's status; null when no answer came." },
    durationMs: { type: 'integer', minimum: 0, description: 'Time to the answer or the failure, in milliseconds.' },
    success: { type: 'boolean', description: 'True for a 2xx answer within 10 seconds.' },
    error: { type: ['string', 'null'], description: 'Why the attempt failed; null on success.' },
    trigger: {
      type: 'string',
      enum: ['event', 'replay', 'recovery'],
      description:
        '`event`: the event happened. `replay`: you asked to send it again. `recovery`: it was missed and recovered when you re-enabled the endpoint.',
    },
  }),
  EventDelivery,
  EventLogEntry: record('One event of the account, as its deliveries carried it, with where it went.', {
    id: id('evt', 'Event id, as in the envelope.'),
    event: ref('WebhookEventKind'),
    createdAt: {
      type: 'string',
      format: 'date-time',
      description: 'When it happened, as in the envelope (offset +00:00).',
      examples: ['2026-01-01T12:00:00.000+00:00'],
    },
    data: { type: 'object', description: "The event's `data`, as in the envelope (see *Webhook events*)." },
    deliveries: { type: 'array', items: ref('EventDelivery'), description: 'Each endpoint it went to; empty when none was subscribed.' },
  }),
  EventPage: record('Events, newest first.', {
    items: { type: 'array', items: ref('EventLogEntry') },
    nextCursor,
  }),
};
