//! Component schemas of the webhook endpoints' answers, their delivery attempts and the event log.
import { EventDelivery } from '../../domain/events/index.js';
import { WebhookEndpoint, WebhookSecret } from '../../domain/webhooks/index.js';
import { page, dateTime, id, record, ref, type JsonSchema } from './schema-parts.js';

// The two answers that show the signing secret, once: the endpoint and the secret.
const withSecret = { ...WebhookEndpoint.properties, secret: WebhookSecret };

export const WEBHOOK_ENDPOINT_SCHEMAS: Record<string, JsonSchema> = {
  WebhookEndpoint,
  NewWebhookEndpoint: record('A new webhook endpoint. `secret` is shown only in this answer: store it now.', withSecret),
  RotatedWebhookEndpoint: record(
    'The endpoint with its new signing secret, shown only in this answer. The previous secret keeps signing until `previousSecretExpiresAt`.',
    withSecret,
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
  EventPage: page('Events, newest first.', 'EventLogEntry'),
};
