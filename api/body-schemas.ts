//! JSON Schemas of the account and operator API request bodies (validation and OpenAPI).
import { GRANT_REASONS } from '../domain/ledger.js';

const name = { type: 'string', minLength: 1, maxLength: 100, description: 'A label for your own reference.' };

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
    },
  },
} as const;
