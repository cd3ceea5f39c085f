//! Component schemas of the account API's answers: the account, its usage and grants, its
//! asynchronous calls and its API keys.
import { ApiKeyFields, ApiKeyView, KeySettingsView } from '../../domain/accounts/index.js';
import { Grant, LOW_BALANCE_THRESHOLD } from '../../domain/ledger/index.js';
import {
  credential,
  credits,
  dateTime,
  id,
  nextCursor,
  page,
  nullableDateTime,
  planFields,
  record,
  ref,
  type JsonSchema,
} from './schema-parts.js';

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

const usageFields = {
  requestId: { type: 'string', description: "The call's request id (its `X-Request-Id`); for an expiry `exp_...`." },
  tool: { type: ['string', 'null'], description: 'Tool name; null for the expiry of a grant.' },
  credits: credits('Credits charged: the cost, or 0 when refunded; for an expiry, the credits that lapsed.'),
  outcome: {
    type: 'string',
    enum: ['charged', 'refunded', 'expired'],
    description:
      '`charged` for a 200 answer, `refunded` for any other, `expired` for credits of a grant that lapsed (and credits a call refunded to a grant that expired while it ran).',
  },
  at: dateTime('When the call finished, or when the grant expired.'),
};

export const ACCOUNT_SCHEMAS: Record<string, JsonSchema> = {
  Account: record('The account of the owner token.', {
    id: id('acc', 'Account id.'),
    name: { type: ['string', 'null'], description: 'Account name.' },
    balance: credits('Available credits.'),
    lowBalanceThreshold: {
      type: 'integer',
      const: LOW_BALANCE_THRESHOLD,
      description: '`credits.low` fires when the balance falls below it.',
    },
    createdAt: dateTime('When the account was opened.'),
    ...planFields,
  }),
  UsageEntry: {
    // `grantId` only on expiries, `batchId` only on a batch's items.
    ...record('One finished tool call, or the expiry of what was left of a grant.', usageFields),
    properties: {
      ...usageFields,
      grantId: id('grt', 'For an expiry: the grant whose credits lapsed.'),
      keyId: id('key', 'For a call: the API key that made it (absent on calls made before keys were recorded).'),
      batchId: id('bat', 'For an item of a batch: the batch it belongs to.'),
      monitorId: id('mon', "For a monitor's run: the monitor."),
      via: {
        type: 'string',
        enum: ['mcp', 'monitor'],
        description: "For a call made over MCP (`/mcp`): `mcp`; for a monitor's run: `monitor`. Absent for a call through the REST API.",
      },
    },
  },
  Grant,
  GrantPage: page('Grants, newest first.', 'Grant'),
  CallAccepted: record('The call runs; read it at `location` (also the `Location` header).', {
    requestId: { type: 'string', description: "The call's request id (its `X-Request-Id`)." },
    tool: { type: 'string', description: 'Tool name.' },
    status: {
      type: 'string',
      enum: ['running', 'succeeded', 'failed'],
      description: '`running` for a new call; a repeat with the same Idempotency-Key shows how the call stands.',
    },
    location: {
      type: 'string',
      description: '`/api/v1/calls/{requestId}`.',
      examples: ['/api/v1/calls/call-acc_4hQ2mV8kZr1xYt6pW0nLbC-9fK2pQ7rT1wX5zB3nM8c'],
    },
  }),
  CallSummary: record('An asynchronous call.', callFields),
  Call: {
    // `output` only when it succeeded, `problem` only when it failed.
    ...record(
      'An asynchronous call: while `running`, only its status; then its output or its problem, kept 24 hours after it ended.',
      callAnswerFields,
    ),
    properties: {
      ...callAnswerFields,
      output: { description: "`succeeded` only: the tool's output, the same object a synchronous call answers (see the tool's 200)." },
      problem: {
        ...ref('Problem'),
        description: '`failed` only: the problem a synchronous call would have answered: the same code, status, detail and members.',
      },
    },
  },
  CallPage: page('Asynchronous calls, newest first.', 'CallSummary'),
  UsagePage: record('Usage, newest first, and the render cache per day.', {
    items: { type: 'array', items: ref('UsageEntry') },
    nextCursor,
    days: {
      type: 'array',
      description: "The period's UTC days with render cache hits, newest first (the account's, whatever `cursor` or `keyId`).",
      items: record('One day of the render cache.', {
        day: { type: 'string', format: 'date', description: 'The day (UTC).', examples: ['2026-05-01'] },
        cacheHits: {
          type: 'integer',
          minimum: 1,
          description: 'Answers taken from the render cache: free, and not calls (not in `items`).',
        },
        creditsSaved: credits('Credits those answers did not cost: what each render was charged when it was made.'),
      }),
    },
  }),
  ApiKey: record('An API key, without the key itself.', { ...ApiKeyView.properties, maker: ref('KeyMaker') }),
  NewApiKey: record('A new API key. `key` is shown only in this answer: store it now.', {
    ...ApiKeyFields,
    key: credential('utk', 'The API key.'),
    ...KeySettingsView.properties,
  }),
  RevokedApiKey: record('A revoked key.', {
    id: id('key', 'Key id.'),
    revokedAt: dateTime('When the key was revoked (the first revocation, when repeated).'),
  }),
};
