//! The OpenAPI operations of the account, its usage, grants and API keys (`api/routes/account.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { CreateKeyBody, UpdateKeyBody } from '../bodies/account.js';
import { MAX_EXPORT_DAYS, MAX_EXPORT_ROWS } from '../usage-export.js';
import { json, paramRef } from '../docs/openapi-parts.js';
import {
  answer,
  BODY_CODES,
  jsonBody,
  linked,
  listOf,
  OWNER,
  PAGE_PARAMETERS,
  resource,
  withRateLimit,
  type RouteOperation,
} from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function accountOperations(): RouteOperation[] {
  const account = resource('account', OWNER);
  const apiKeys = resource('api-keys', OWNER, 'KeyId');
  return [
    account('get', '/api/v1/account', {
      operationId: 'getAccount',
      summary: 'Get the account',
      ok: answer('The account and its balance.', 'Account'),
      codes: ['not_found'],
    }),
    account('get', '/api/v1/account/usage', {
      operationId: 'listUsage',
      summary: 'List or export usage',
      description:
        'Finished tool calls and expiries of grants, newest first, with what each was charged. Page with `cursor`; keep to a period with `from` and `to`. ' +
        '`days` adds the render cache per UTC day of the period (the last 31 days when `from` is left out), newest first, each day with hits: `cacheHits`, answers taken from the cache (free, not calls, so not in `items`), ' +
        "and `creditsSaved`, what those renders cost when they were made. `days` is the account's whatever the `cursor` or `keyId`: a render link is no key's call. " +
        `With \`Accept: text/csv\` the whole period (${MAX_EXPORT_DAYS} days at most, ${MAX_EXPORT_ROWS.toLocaleString('en-US')} rows at most; the last 31 days when \`from\` is left out) comes as one CSV file, oldest first: ` +
        '`at,requestId,tool,outcome,credits,grantId,keyId` (the ledger only: cache hits charge nothing). `keyId` keeps to the calls of one API key.',
      parameters: [paramRef('UsageLimit'), paramRef('UsageCursor'), paramRef('UsageFrom'), paramRef('UsageTo'), paramRef('UsageKeyId')],
      ok: withRateLimit('A page of usage, or the CSV file.', {
        ...json(ref('UsagePage')),
        'text/csv': {
          schema: { type: 'string' },
          examples: {
            example: {
              value:
                'at,requestId,tool,outcome,credits,grantId,keyId\r\n2026-05-01T09:30:00.000Z,call-acc_4hQ2mV8kZr1xYt6pW0nLbC-9fK2pQ7rT1wX5zB3nM8c,hash-text,charged,1,,key_7Hq2Lm9Xc4Rt1Vb8Nz3Kp5\r\n',
            },
          },
        },
      }),
      codes: ['validation_failed'],
    }),
    account('get', '/api/v1/account/grants', {
      operationId: 'listGrants',
      summary: 'List grants',
      description:
        'Every grant of credits (welcome, purchase, monthly allowance, adjustment), newest first, with what is left of it and when it expires. ' +
        'Calls spend the grant that expires first, never-expiring grants last. Page with `cursor`.',
      parameters: PAGE_PARAMETERS,
      ok: answer('A page of grants.', 'GrantPage'),
      codes: ['validation_failed'],
    }),
    apiKeys('get', '/api/v1/account/keys', {
      operationId: 'listKeys',
      summary: 'List API keys',
      description:
        'Every API key of the account, revoked ones included, newest first, each with its `maker`: the member who made it (`former: true` once they left the account: ' +
        'the key keeps working until someone revokes it), the owner token, or the operator.',
      ok: answer('The keys, without the keys themselves.', listOf('ApiKey')),
    }),
    apiKeys('post', '/api/v1/account/keys', {
      operationId: 'createKey',
      summary: 'Create an API key',
      description:
        'Fires `api_key.created`. The answer is the only time the key is shown. The body may be left out; its settings limit which tools the key calls, ' +
        'until when, how fast, how many credits a month and from where (each unset: no limit).',
      requestBody: jsonBody(CreateKeyBody, { name: 'ci' }, false),
      ok: linked(answer('The new key.', 'NewApiKey', '201'), { revokeKey: { id: '$response.body#/id' } }),
      codes: [...BODY_CODES],
    }),
    apiKeys('patch', '/api/v1/account/keys/{id}', {
      operationId: 'updateKey',
      summary: "Change an API key's name or settings",
      description:
        'Sets what the body gives and clears what it sets to null; the rest stays. The change is in force within one second on every API instance. ' +
        'A revoked key cannot be changed (404).',
      requestBody: jsonBody(UpdateKeyBody, { tools: ['hash-text', 'network'], monthlyCreditLimit: 500, allowedIps: ['203.0.113.0/24'] }),
      ok: answer('The key as it is now.', 'ApiKey'),
      codes: [...BODY_CODES, 'not_found'],
    }),
    apiKeys('delete', '/api/v1/account/keys/{id}', {
      operationId: 'revokeKey',
      summary: 'Revoke an API key',
      description: 'The key stops working within one second. Fires `api_key.revoked` once; revoking again answers the same.',
      ok: answer('The key is revoked.', 'RevokedApiKey'),
      codes: ['not_found'],
    }),
  ];
}
