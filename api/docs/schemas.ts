//! JSON Schemas (2020-12) of what the API answers outside the tools (problems, account,
//! operator and service answers) and of the webhook events it posts: `components.schemas` of
//! the OpenAPI document. They describe the shapes the routes build; keep the two in step.
import { GRANT_REASONS, LOW_BALANCE_THRESHOLD } from '../../domain/ledger.js';
import { MAX_MONTHLY_ALLOWANCE, ROLLOVERS } from '../../domain/plans.js';
import { GROUPS } from '../../domain/tool-definition.js';
import { POOLS } from '../../lib/temporal-shared.js';
import { ERRORS } from '../../lib/errors.js';
import { DEFAULT_EVENT_TYPES, EVENT_KINDS, SUBSCRIBABLE_EVENT_KINDS, type EventKind } from '../../lib/event-kinds.js';

export type JsonSchema = Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// `examples` make the renderer's samples look like real answers rather than "string".
const id = (prefix: string, description: string) => ({ type: 'string', pattern: `^${prefix}_[0-9A-Za-z]+$`, description, examples: [`${prefix}_4hQ2mV8kZr1xYt6pW0nLbC`] });
const dateTime = (description: string) => ({ type: 'string', format: 'date-time', description, examples: ['2026-01-01T12:00:00.000Z'] });
const nullableDateTime = (description: string) => ({ type: ['string', 'null'], format: 'date-time', description, examples: [null] });
const credential = (prefix: 'utk' | 'uto', description: string) => ({ type: 'string', pattern: `^${prefix}_[0-9A-Za-z]{40}$`, description, examples: [`${prefix}_8Fq2ZrW1tYk3Lm9Qp0Xn4Vb7Cs6Dh5Ja2Ge1Rf8W`] });
const keyPrefix = { type: 'string', description: 'First 12 characters of the key, for recognising it.', examples: ['utk_8Fq2ZrW1'] };
const credits = (description: string) => ({ type: 'integer', minimum: 0, description });
/** A closed object whose every property is present (the routes always write each field). */
const record = (description: string, properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  description,
  required: Object.keys(properties),
  properties,
});

const problem: Record<string, JsonSchema> = {
  ErrorCode: {
    type: 'string',
    enum: Object.keys(ERRORS),
    description: 'Stable machine-readable error code; /docs/errors explains each.',
  },
  FieldError: record('One invalid field.', {
    field: { type: 'string', description: 'JSON Pointer into the body (`/width`), or `header:<Name>` / `query:<name>`.' },
    message: { type: 'string', description: 'What is wrong with it.' },
  }),
  Problem: {
    type: 'object',
    description: 'An RFC 9457 problem. Members beyond the ones listed may be added.',
    required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
    properties: {
      type: { type: 'string', format: 'uri', description: "`PUBLIC_BASE_URL/docs/errors#<code>`: the code's explanation." },
      title: { type: 'string', description: 'Short summary of the code; the same for every answer with it.' },
      status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status, repeated.' },
      detail: { type: 'string', description: 'What went wrong with this request, for people.' },
      code: ref('ErrorCode'),
      requestId: { type: 'string', description: 'Also in `X-Request-Id`; quote it when you contact support.' },
      errors: { type: 'array', items: ref('FieldError'), description: '`validation_failed`: every bad field.' },
      balance: credits('`insufficient_credits`: the available balance.'),
      cost: credits("`insufficient_credits`: the tool's cost."),
      reason: { type: 'string', description: '`target_not_allowed`: which rule refused the target; `upstream_error`: what failed, when known.' },
      retryAfter: { type: 'integer', minimum: 1, description: '`rate_limited`: seconds to wait, as in `Retry-After`.' },
      limit: { type: 'integer', description: '`payload_too_large`: the body limit in bytes.' },
      limits: { type: 'object', description: '`hash_too_costly`: the bounds the hash exceeded.' },
      checks: { type: 'object', description: '`unavailable` from `/readyz`: each dependency, `ok` or `unreachable`.' },
    },
  },
};

const callFields = {
  requestId: { type: 'string', description: "The call's request id (its `X-Request-Id`)." },
  tool: { type: 'string', description: 'Tool name.' },
  status: { type: 'string', enum: ['running', 'succeeded', 'failed'] },
  createdAt: dateTime('When the call was accepted.'),
  completedAt: nullableDateTime('When it ended; null while running.'),
  charged: credits('Credits charged: the cost when it succeeded, 0 otherwise (a failed call is refunded in full).'),
  code: { type: ['string', 'null'], description: "A failed call's error code; null otherwise." },
};

/** What `GET /api/v1/calls/{requestId}` answers for every call, whatever its status. */
const callAnswerFields = {
  ...callFields,
  expiresAt: nullableDateTime('When the answer stops being kept (24 hours after the end); null while running.'),
};

/** The cursor of every paged list (usage, calls, events). */
const nextCursor = { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page.' };

const apiKeyFields = {
  id: id('key', 'Key id.'),
  name: { type: ['string', 'null'], description: 'Your label for the key.' },
  prefix: keyPrefix,
  createdAt: dateTime('When the key was created.'),
};

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
    'While a rotated secret\'s overlap runs: when the previous secret stops signing (deliveries carry both signatures until then). Null otherwise.',
  ),
};

const secret = {
  type: 'string',
  pattern: '^whsec_[0-9A-Za-z_-]{43}$',
  description: 'Signing secret of the deliveries (`whsec_` + 32 random bytes, base64url).',
  examples: ['whsec_q7Vd0rN3bX9kPz2Lm5Tf8Wc1Yh4Js6Ga0Ue3Ri7Ko2M'],
};

const planSummary = {
  type: ['object', 'null'],
  description: 'The plan the account is on (null for an account opened before plans).',
  required: ['id', 'name', 'monthlyAllowance', 'rollover'],
  properties: {
    id: { type: 'string', examples: ['pro'] },
    name: { type: 'string', examples: ['Pro'] },
    monthlyAllowance: { type: 'integer', minimum: 0, maximum: MAX_MONTHLY_ALLOWANCE, description: 'Credits granted each period, on the anniversary.' },
    rollover: { type: 'string', enum: [...ROLLOVERS], description: '`none`: the unused part of an allowance lapses when the next period starts; `keep`: it stays until spent.' },
  },
};
const planFields = {
  plan: planSummary,
  planSince: nullableDateTime('When the account joined its plan: each period starts on this day of the month (the last day of shorter months).'),
  nextAllowance: {
    type: ['object', 'null'],
    description: 'The next monthly allowance; null when the plan gives none.',
    required: ['at', 'amount'],
    properties: { at: dateTime('When it is granted (within minutes of this time).'), amount: { type: 'integer', minimum: 1, description: 'Credits.' } },
  },
};

const usageFields = {
  requestId: { type: 'string', description: "The call's request id (its `X-Request-Id`); for an expiry `exp_...`." },
  tool: { type: ['string', 'null'], description: 'Tool name; null for the expiry of a grant.' },
  credits: credits('Credits charged: the cost, or 0 when refunded; for an expiry, the credits that lapsed.'),
  outcome: {
    type: 'string',
    enum: ['charged', 'refunded', 'expired'],
    description: '`charged` for a 200 answer, `refunded` for any other, `expired` for credits of a grant that lapsed (and credits a call refunded to a grant that expired while it ran).',
  },
  at: dateTime('When the call finished, or when the grant expired.'),
};

const account: Record<string, JsonSchema> = {
  Account: record('The account of the owner token.', {
    id: id('acc', 'Account id.'),
    name: { type: ['string', 'null'], description: 'Account name.' },
    balance: credits('Available credits.'),
    lowBalanceThreshold: { type: 'integer', const: LOW_BALANCE_THRESHOLD, description: '`credits.low` fires when the balance falls below it.' },
    createdAt: dateTime('When the account was opened.'),
    ...planFields,
  }),
  UsageEntry: {
    // `grantId` only on expiries.
    ...record('One finished tool call, or the expiry of what was left of a grant.', usageFields),
    properties: { ...usageFields, grantId: id('grt', 'For an expiry: the grant whose credits lapsed.') },
  },
  Grant: record('A grant of credits and what is left of it.', {
    id: id('grt', 'Grant id.'),
    amount: { type: 'integer', minimum: 1, description: 'Credits granted.' },
    reason: { type: 'string', enum: ['welcome', ...GRANT_REASONS], description: '`welcome` is the opening grant.' },
    remaining: credits('Credits left of it that can be spent now (0 once it expired).'),
    held: credits('Credits of it held by calls still running.'),
    expired: credits('Credits of it that lapsed.'),
    expiresAt: nullableDateTime('When what is left of it lapses; null: never. Calls spend the grant that expires first.'),
    expiredAt: nullableDateTime('When it expired; null while it has not.'),
    idempotencyKey: { type: ['string', 'null'], description: 'The payment id (or allowance period) it was granted under.' },
    createdAt: dateTime('When it was granted.'),
  }),
  GrantPage: record('Grants, newest first.', {
    items: { type: 'array', items: ref('Grant') },
    nextCursor,
  }),
  CallAccepted: record('The call runs; read it at `location` (also the `Location` header).', {
    requestId: { type: 'string', description: "The call's request id (its `X-Request-Id`)." },
    tool: { type: 'string', description: 'Tool name.' },
    status: { type: 'string', enum: ['running', 'succeeded', 'failed'], description: '`running` for a new call; a repeat with the same Idempotency-Key shows how the call stands.' },
    location: { type: 'string', description: '`/api/v1/calls/{requestId}`.', examples: ['/api/v1/calls/call-acc_4hQ2mV8kZr1xYt6pW0nLbC-9fK2pQ7rT1wX5zB3nM8c'] },
  }),
  CallSummary: record('An asynchronous call.', callFields),
  Call: {
    // `output` only when it succeeded, `problem` only when it failed.
    ...record('An asynchronous call: while `running`, only its status; then its output or its problem, kept 24 hours after it ended.', callAnswerFields),
    properties: {
      ...callAnswerFields,
      output: { description: "`succeeded` only: the tool's output, the same object a synchronous call answers (see the tool's 200)." },
      problem: { ...ref('Problem'), description: '`failed` only: the problem a synchronous call would have answered: the same code, status, detail and members.' },
    },
  },
  CallPage: record('Asynchronous calls, newest first.', {
    items: { type: 'array', items: ref('CallSummary') },
    nextCursor,
  }),
  UsagePage: record('Usage, newest first.', {
    items: { type: 'array', items: ref('UsageEntry') },
    nextCursor,
  }),
  ApiKey: record('An API key, without the key itself.', {
    ...apiKeyFields,
    lastUsedAt: nullableDateTime('About when the key last authenticated a call (updated at most once a minute); null if never.'),
    revokedAt: nullableDateTime('When the key was revoked; null while it works.'),
  }),
  NewApiKey: record('A new API key. `key` is shown only in this answer: store it now.', {
    ...apiKeyFields,
    key: credential('utk', 'The API key.'),
  }),
  RevokedApiKey: record('A revoked key.', {
    id: id('key', 'Key id.'),
    revokedAt: dateTime('When the key was revoked (the first revocation, when repeated).'),
  }),
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
      description: '`event`: the event happened. `replay`: you asked to send it again. `recovery`: it was missed and recovered when you re-enabled the endpoint.',
    },
  }),
  EventDelivery: record('What became of the event at one endpoint.', {
    endpointId: id('whe', 'The endpoint.'),
    status: {
      type: 'string',
      enum: ['delivered', 'failing', 'undelivered'],
      description: '`delivered`: an attempt succeeded. `failing`: attempts failed and retries are due. `undelivered`: it ended unsent (`reason`).',
    },
    attempts: { type: 'integer', minimum: 0, description: 'Attempts made.' },
    lastAttemptAt: nullableDateTime('When the last attempt was made; null when none was.'),
    reason: {
      type: ['string', 'null'],
      enum: ['endpoint_disabled', 'expired', 'backlog_full', null],
      description: 'Why it ended unsent: the endpoint was disabled, 3 days of retries passed, or its queue was full. Null otherwise.',
    },
  }),
  EventLogEntry: record('One event of the account, as its deliveries carried it, with where it went.', {
    id: id('evt', 'Event id, as in the envelope.'),
    event: ref('WebhookEventKind'),
    createdAt: { type: 'string', format: 'date-time', description: 'When it happened, as in the envelope (offset +00:00).', examples: ['2026-01-01T12:00:00.000+00:00'] },
    data: { type: 'object', description: "The event's `data`, as in the envelope (see *Webhook events*)." },
    deliveries: { type: 'array', items: ref('EventDelivery'), description: 'Each endpoint it went to; empty when none was subscribed.' },
  }),
  EventPage: record('Events, newest first.', {
    items: { type: 'array', items: ref('EventLogEntry') },
    nextCursor,
  }),
};

const operator: Record<string, JsonSchema> = {
  OpenedAccount: record('A new account with its first credentials, each shown only in this answer.', {
    account: record('The account.', {
      id: id('acc', 'Account id.'),
      name: { type: ['string', 'null'] },
      balance: credits('Starting credits: the welcome grant and the first period\'s allowance.'),
      plan: { type: 'string', description: 'The plan it joined.' },
    }),
    ownerToken: credential('uto', "The account owner's token (account API)."),
    apiKey: record('A first API key, named `default`.', {
      id: id('key', 'Key id.'),
      prefix: keyPrefix,
      key: credential('utk', 'The API key.'),
    }),
  }),
  AdminAccount: record('An account as the operator sees it.', {
    id: id('acc', 'Account id.'),
    name: { type: ['string', 'null'] },
    email: { type: ['string', 'null'] },
    balance: credits('Available credits.'),
    createdAt: dateTime('When the account was opened.'),
    ...planFields,
  }),
  Balance: record('The balance after the grant (for a repeat of its idempotencyKey, what the first grant answered), and the grant.', {
    balance: credits('Available credits.'),
    grant: record('The grant.', {
      id: id('grt', 'Grant id.'),
      amount: { type: 'integer', minimum: 1 },
      reason: { type: 'string', enum: [...GRANT_REASONS] },
      expiresAt: nullableDateTime('When what is left of it lapses; null: never.'),
      idempotencyKey: { type: ['string', 'null'] },
      createdAt: dateTime('When it was granted.'),
    }),
  }),
  Plan: record('A plan.', {
    id: { type: 'string', examples: ['pro'] },
    name: { type: 'string', examples: ['Pro'] },
    monthlyAllowance: { type: 'integer', minimum: 0, maximum: MAX_MONTHLY_ALLOWANCE, description: 'Credits an account on it gets each period, on its anniversary.' },
    rollover: { type: 'string', enum: [...ROLLOVERS], description: '`none`: the unused part lapses when the next period starts; `keep`: it stays until spent.' },
    createdAt: dateTime('When it was created.'),
    updatedAt: dateTime('When it was last changed.'),
  }),
};

const service: Record<string, JsonSchema> = {
  Catalogue: record('Every tool.', {
    tools: {
      type: 'array',
      items: record('A tool.', {
        name: { type: 'string', description: 'Tool name, the last path segment.' },
        group: { type: 'string', enum: Object.keys(GROUPS) },
        groupTitle: { type: 'string', enum: Object.values(GROUPS) },
        cost: { type: 'integer', minimum: 1, description: 'Credits per call that answers 200.' },
        pool: { type: 'string', enum: POOLS.filter((p) => p !== 'core'), description: 'Worker pool that runs the tool.' },
        path: { type: 'string', description: 'Path to POST to.' },
        inputSchema: { type: 'object', description: "The tool's input, as JSON Schema 2020-12." },
        docs: { type: 'string', format: 'uri', description: "The tool's section of this reference." },
      }),
    },
  }),
  Health: record('The process is up.', { status: { type: 'string', const: 'ok' } }),
  Readiness: record('Temporal and the database are reachable.', {
    status: { type: 'string', const: 'ready' },
    checks: record('Each dependency.', { database: { type: 'string', const: 'ok' }, temporal: { type: 'string', const: 'ok' } }),
  }),
};

/** Each event kind's `data`, typed by EventKind so a new kind needs its payload described here. */
export const EVENT_PAYLOADS: Readonly<Record<EventKind, { schema: string; summary: string; data: JsonSchema; example: Record<string, unknown> }>> = {
  'credits.low': {
    schema: 'CreditsLow',
    summary: 'The balance fell below 25 credits. Fires once, on the charge that crosses; again only after a grant lifts the balance back to 25 or more.',
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
    summary: 'Credits were added by a purchase, the monthly allowance or a manual adjustment.',
    data: record('', {
      amount: { type: 'integer', minimum: 1, description: 'Credits added.' },
      reason: { type: 'string', enum: [...GRANT_REASONS] },
      balance: credits('The balance after the grant.'),
    }),
    example: { amount: 500, reason: 'purchase', balance: 524 },
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
    example: { requestId: 'call-acc_4hQ2mV8kZr1xYt6pW0nLbC-9fK2pQ7rT1wX5zB3nM8c', tool: 'website-screenshot', status: 'succeeded', charged: 25, code: null },
  },
  'webhook.test': {
    schema: 'WebhookTest',
    summary: 'Sent on request (`POST /api/v1/account/webhooks/{id}/test`) to check a receiver.',
    data: record('', { endpointId: id('whe', 'The endpoint tested.'), message: { type: 'string' } }),
    example: { endpointId: 'whe_7Tn3pLq9Vx2Rk5Yb8Mc1Dz', message: 'This is a test event.' },
  },
};

function eventSchemas(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {
    WebhookEventKind: { type: 'string', enum: [...EVENT_KINDS] },
  };
  for (const kind of EVENT_KINDS) {
    const { schema, summary, data } = EVENT_PAYLOADS[kind];
    out[`${schema}Data`] = { ...data, description: `\`data\` of \`${kind}\`.` };
    out[`${schema}Event`] = record(summary, {
      id: id('evt', 'Event id: the same on every attempt to deliver it; use it to drop duplicates.'),
      event: { type: 'string', const: kind },
      createdAt: { type: 'string', format: 'date-time', pattern: '\\+00:00$', description: 'When the event happened, ISO 8601 with offset +00:00.', examples: ['2026-01-01T12:00:00.000+00:00'] },
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

export const COMPONENT_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  ...problem,
  ...account,
  ...operator,
  ...service,
  ...eventSchemas(),
};
