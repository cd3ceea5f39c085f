//! Component schemas of the webhook events the service posts: each kind's `data` and envelope.
import { GRANT_REASONS, LOW_BALANCE_THRESHOLD } from '../../domain/ledger/index.js';
import { EVENT_KINDS, type EventKind } from '../../contracts/event-kinds.js';
import { credits, id, keyPrefix, record, ref, type JsonSchema } from './schema-parts.js';
import { batchEventFields } from './batch-schemas.js';
import { ROLES } from '../../domain/teams/index.js';
import { MONITOR_EVENT_PAYLOADS } from './monitor-schemas.js';

const memberData = record('', {
  userId: id('usr', 'The person.'),
  email: { type: 'string', description: 'Their address.' },
  name: { type: ['string', 'null'], description: 'Their name.' },
  role: { type: 'string', enum: [...ROLES], description: 'Their role on the account (when they joined; when they were removed).' },
});

/** Each event kind's `data`, typed by EventKind so a new kind needs its payload described here. */
export const EVENT_PAYLOADS: Readonly<
  Record<EventKind, { schema: string; summary: string; data: JsonSchema; example: Record<string, unknown> }>
> = {
  'credits.low': {
    schema: 'CreditsLow',
    summary:
      'The balance fell below 25 credits. Fires once, on the charge that crosses; again only after a grant lifts the balance back to 25 or more.',
    data: record('', {
      balance: credits('The balance after the charge.'),
      threshold: { type: 'integer', const: LOW_BALANCE_THRESHOLD },
      message: { type: 'string' },
    }),
    example: { balance: 24, threshold: LOW_BALANCE_THRESHOLD, message: `Your credit balance is 24, below ${LOW_BALANCE_THRESHOLD}.` },
  },
  'credits.exhausted': {
    schema: 'CreditsExhausted',
    summary: 'A charge brought the balance to exactly 0; tool calls are refused with 402 until credits are added.',
    data: record('', { balance: { type: 'integer', const: 0 }, message: { type: 'string' } }),
    example: { balance: 0, message: 'Your credit balance is 0; tool calls are refused until credits are added.' },
  },
  'credits.granted': {
    schema: 'CreditsGranted',
    summary:
      'Credits were added by a purchase (a credit pack bought, or a dispute of one won), an automatic recharge, the monthly allowance or a manual adjustment.',
    data: record('', {
      amount: { type: 'integer', minimum: 1, description: 'Credits added.' },
      reason: { type: 'string', enum: [...GRANT_REASONS, 'recharge'] },
      balance: credits('The balance after the grant.'),
    }),
    example: { amount: 500, reason: 'purchase', balance: 524 },
  },
  'credits.voided': {
    schema: 'CreditsVoided',
    summary:
      "Credits of a purchase were taken back: its payment was refunded (the refunded share of its credits) or disputed (all that is left of them). Only what is left of that purchase's credits is taken, never credits already spent; a dispute won gives its part back (`credits.granted`).",
    data: record('', {
      amount: { type: 'integer', minimum: 1, description: 'Credits taken back.' },
      reason: { type: 'string', enum: ['refund', 'dispute'] },
      purchaseId: id('pur', 'The purchase (GET /api/v1/account/purchases).'),
      balance: credits('The balance after it.'),
    }),
    example: { amount: 250, reason: 'refund', purchaseId: 'pur_4hQ2mV8kZr1xYt6pW0nLbC', balance: 1250 },
  },
  'credits.recharge_failed': {
    schema: 'CreditsRechargeFailed',
    summary:
      'An automatic recharge failed: the saved card was declined, or needs its holder (`authentication_required`). Nothing was granted. Three failures in a row turn auto-recharge off (`autoRechargeEnabled: false`) until it is turned on again.',
    data: record('', {
      reason: {
        type: 'string',
        description: "Stripe's code for the failure (`card_declined`, `authentication_required`, `expired_card` ...).",
      },
      consecutiveFailures: { type: 'integer', minimum: 1, description: 'Failures in a row, this one included.' },
      autoRechargeEnabled: { type: 'boolean', description: 'False when this failure turned auto-recharge off.' },
    }),
    example: { reason: 'card_declined', consecutiveFailures: 1, autoRechargeEnabled: true },
  },
  'api_key.created': {
    schema: 'ApiKeyCreated',
    summary: 'An API key was created on the account.',
    data: record('', { keyId: id('key', 'Key id.'), name: { type: ['string', 'null'] }, prefix: keyPrefix }),
    example: { keyId: 'key_4hQ2mV8kZr1xYt6pW0nLbC', name: 'ci', prefix: 'utk_8Fq2ZrW1' },
  },
  'api_key.revoked': {
    schema: 'ApiKeyRevoked',
    summary: 'An API key was revoked. Fires once per key.',
    data: record('', { keyId: id('key', 'Key id.'), name: { type: ['string', 'null'] }, prefix: keyPrefix }),
    example: { keyId: 'key_4hQ2mV8kZr1xYt6pW0nLbC', name: 'ci', prefix: 'utk_8Fq2ZrW1' },
  },
  'call.completed': {
    schema: 'CallCompleted',
    summary:
      'An asynchronous tool call (`Prefer: respond-async`) ended. Sent only to endpoints subscribed to `call.completed`. Read the output with `GET /api/v1/calls/{requestId}`.',
    data: record('', {
      requestId: { type: 'string', description: "The call's request id, as in `Location` and `X-Request-Id`." },
      tool: { type: 'string', description: 'Tool name.' },
      status: { type: 'string', enum: ['succeeded', 'failed'] },
      charged: credits('Credits charged: the cost when it succeeded, 0 when it failed (refunded in full).'),
      code: { type: ['string', 'null'], description: "A failed call's error code (as in its problem); null when it succeeded." },
    }),
    example: {
      requestId: 'call-acc_4hQ2mV8kZr1xYt6pW0nLbC-9fK2pQ7rT1wX5zB3nM8c',
      tool: 'website-screenshot',
      status: 'succeeded',
      charged: 25,
      code: null,
    },
  },
  'batch.completed': {
    schema: 'BatchCompleted',
    summary:
      'A batch ended: every item succeeded, failed or was skipped (`status` `completed`), or it was cancelled and its running items ended (`cancelled`). With its final counts.',
    data: record('', batchEventFields),
    example: {
      batchId: 'bat_4hQ2mV8kZr1xYt6pW0nLbC',
      tool: 'hash-text',
      status: 'completed',
      total: 3,
      counts: { pending: 0, running: 0, succeeded: 3, failed: 0, skipped: 0 },
      charged: 3,
    },
  },
  'batch.paused': {
    schema: 'BatchPaused',
    summary:
      'A batch made with `onInsufficientCredits: "wait"` paused: the balance could not cover its next item. It resumes by itself when credits are granted (for up to 7 days).',
    data: record('', batchEventFields),
    example: {
      batchId: 'bat_4hQ2mV8kZr1xYt6pW0nLbC',
      tool: 'hash-text',
      status: 'paused',
      total: 300,
      counts: { pending: 120, running: 0, succeeded: 180, failed: 0, skipped: 0 },
      charged: 180,
    },
  },
  'member.joined': {
    schema: 'MemberJoined',
    summary: 'A person joined the account (accepted an invitation, or opened the account), with their role.',
    data: memberData,
    example: { userId: 'usr_4hQ2mV8kZr1xYt6pW0nLbC', email: 'ada@example.com', name: 'Ada', role: 'developer' },
  },
  'member.removed': {
    schema: 'MemberRemoved',
    summary: 'An owner or admin removed a member: their sessions on the account ended at once; the API keys they made keep working.',
    data: memberData,
    example: { userId: 'usr_4hQ2mV8kZr1xYt6pW0nLbC', email: 'ada@example.com', name: 'Ada', role: 'developer' },
  },
  ...MONITOR_EVENT_PAYLOADS,
  'webhook.test': {
    schema: 'WebhookTest',
    summary: 'Sent on request (`POST /api/v1/account/webhooks/{id}/test`) to check a receiver.',
    data: record('', { endpointId: id('whe', 'The endpoint tested.'), message: { type: 'string' } }),
    example: { endpointId: 'whe_7Tn3pLq9Vx2Rk5Yb8Mc1Dz', message: 'This is a test event.' },
  },
};

export function eventSchemas(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {
    WebhookEventKind: { type: 'string', enum: [...EVENT_KINDS] },
  };
  for (const kind of EVENT_KINDS) {
    const { schema, summary, data } = EVENT_PAYLOADS[kind];
    out[`${schema}Data`] = { ...data, description: `\`data\` of \`${kind}\`.` };
    out[`${schema}Event`] = record(summary, {
      id: id('evt', 'Event id: the same on every attempt to deliver it; use it to drop duplicates.'),
      event: { type: 'string', const: kind },
      createdAt: {
        type: 'string',
        format: 'date-time',
        pattern: '\\+00:00$',
        description: 'When the event happened, ISO 8601 with offset +00:00.',
        examples: ['2026-01-01T12:00:00.000+00:00'],
      },
      data: ref(`${schema}Data`),
    });
  }
  out.WebhookEvent = {
    description: 'The body of every delivery: the envelope `{ id, event, createdAt, data }`.',
    oneOf: EVENT_KINDS.map((k) => ref(`${EVENT_PAYLOADS[k].schema}Event`)),
    discriminator: {
      propertyName: 'event',
      mapping: Object.fromEntries(EVENT_KINDS.map((k) => [k, `#/components/schemas/${EVENT_PAYLOADS[k].schema}Event`])),
    },
  };
  return out;
}
