//! Component schemas of the operator API's answers (accounts, grants, plans) and the service's
//! (catalogue, health).
import { GRANT_REASONS } from '../../domain/ledger/index.js';
import { GROUPS } from '../../domain/tools/index.js';
import { POOLS } from '../../contracts/temporal-names.js';
import {
  planTerms,
  credential,
  credits,
  dateTime,
  id,
  keyPrefix,
  nullableDateTime,
  planFields,
  record,
  type JsonSchema,
} from './schema-parts.js';

export const OPERATOR_SCHEMAS: Record<string, JsonSchema> = {
  OpenedAccount: record('A new account with its first credentials, each shown only in this answer.', {
    account: record('The account.', {
      id: id('acc', 'Account id.'),
      name: { type: ['string', 'null'] },
      balance: credits("Starting credits: the welcome grant and the first period's allowance."),
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
    ...planTerms(
      'Credits an account on it gets each period, on its anniversary.',
      '`none`: the unused part lapses when the next period starts; `keep`: it stays until spent.',
    ),
    createdAt: dateTime('When it was created.'),
    updatedAt: dateTime('When it was last changed.'),
  }),
};

export const SERVICE_SCHEMAS: Record<string, JsonSchema> = {
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
