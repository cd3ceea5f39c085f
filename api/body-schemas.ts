//! JSON Schemas of the account and operator API request bodies (validation and OpenAPI).
import { GRANT_REASONS } from '../domain/ledger.js';
import { DEFAULT_EVENT_TYPES, SUBSCRIBABLE_EVENT_KINDS } from '../lib/events.js';

const name = { type: 'string', minLength: 1, maxLength: 100, description: 'A label for your own reference.' };
const eventTypes = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: [...SUBSCRIBABLE_EVENT_KINDS] },
  description: `The event types delivered to the endpoint. \`webhook.test\` is always delivered when you ask for it. Default: ${DEFAULT_EVENT_TYPES.map((k) => `\`${k}\``).join(', ')} (every type but \`call.completed\`).`,
};

export const BODY_SCHEMAS = {
  createAccount: {
    type: 'object',
    additionalProperties: false,
    properties: {
      name,
      email: { type: 'string', format: 'email', maxLength: 254, description: 'Contact address of the account owner.' },
      credits: { type: 'integer', minimum: 0, maximum: 1_000_000_000, description: 'Starting credits; FREE_CREDITS when omitted.' },
    },
  },
  grantCredits: {
    type: 'object',
    additionalProperties: false,
    required: ['amount', 'reason'],
    properties: {
      amount: { type: 'integer', minimum: 1, maximum: 1_000_000_000, description: 'Credits to add.' },
      reason: { type: 'string', enum: [...GRANT_REASONS], description: 'Why the credits are added.' },
    },
  },
  createKey: {
    type: 'object',
    additionalProperties: false,
    properties: { name },
  },
  createWebhook: {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      url: {
        type: 'string',
        minLength: 1,
        maxLength: 2048,
        description: '`https` URL with a public address (`localhost`, any scheme, only where the operator allows it for testing).',
      },
      eventTypes,
    },
  },
  updateWebhook: {
    type: 'object',
    additionalProperties: false,
    required: ['eventTypes'],
    properties: { eventTypes },
  },
  enableWebhook: {
    type: 'object',
    additionalProperties: false,
    properties: {
      recoverSince: {
        type: 'string',
        format: 'date-time',
        description:
          'Also send, in the order they happened, every event of the last 30 days from this time on that the endpoint should have received and never got (its types at the time of the request).',
      },
    },
  },
  replayEvent: {
    type: 'object',
    additionalProperties: false,
    required: ['eventId'],
    properties: { eventId: { type: 'string', pattern: '^evt_[0-9A-Za-z]+$', maxLength: 64, description: 'The event to send again (from the event log).' } },
  },
  noBody: {
    type: 'object',
    additionalProperties: false,
    properties: {},
  },
} as const;
