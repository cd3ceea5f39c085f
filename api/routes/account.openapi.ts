//! The OpenAPI operations of the account, its usage, grants and API keys (`api/routes/account.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { CreateKeyBody, UpdateKeyBody } from '../bodies/account.js';
import { MAX_EXPORT_DAYS, MAX_EXPORT_ROWS } from '../usage-export.js';
import { json, paramRef } from '../docs/openapi-parts.js';
import { operation, owner, withRateLimit, linked, example, OWNER_CODES, BODY_CODES, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function accountOperations(): RouteOperation[] {
  return [
    operation('get', '/api/v1/account', {
      tag: 'account',
      operationId: 'getAccount',
      summary: 'Get the account',
      ...owner(),
      ok: withRateLimit('The account and its balance.', json(ref('Account'))),
      codes: [...OWNER_CODES, 'not_found'],
    }),
    operation('get', '/api/v1/account/usage', {
      tag: 'account',
      operationId: 'listUsage',
      summary: 'List or export usage',
      ...owner(),
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
      codes: [...OWNER_CODES, 'validation_failed'],
    }),
    operation('get', '/api/v1/account/grants', {
      tag: 'account',
      operationId: 'listGrants',
      summary: 'List grants',
      ...owner(),
      description:
        'Every grant of credits (welcome, purchase, monthly allowance, adjustment), newest first, with what is left of it and when it expires. ' +
        'Calls spend the grant that expires first, never-expiring grants last. Page with `cursor`.',
      parameters: [paramRef('UsageLimit'), paramRef('UsageCursor')],
      ok: withRateLimit('A page of grants.', json(ref('GrantPage'))),
      codes: [...OWNER_CODES, 'validation_failed'],
    }),
    operation('get', '/api/v1/account/keys', {
      tag: 'api-keys',
      operationId: 'listKeys',
      summary: 'List API keys',
      ...owner(),
      description:
        'Every API key of the account, revoked ones included, newest first, each with its `maker`: the member who made it (`former: true` once they left the account: ' +
        'the key keeps working until someone revokes it), the owner token, or the operator.',
      ok: withRateLimit('The keys, without the keys themselves.', json({ type: 'array', items: ref('ApiKey') })),
      codes: OWNER_CODES,
    }),
    operation('post', '/api/v1/account/keys', {
      tag: 'api-keys',
      operationId: 'createKey',
      summary: 'Create an API key',
      ...owner(),
      description:
        'Fires `api_key.created`. The answer is the only time the key is shown. The body may be left out; its settings limit which tools the key calls, ' +
        'until when, how fast, how many credits a month and from where (each unset: no limit).',
      requestBody: { required: false, content: json(CreateKeyBody, example({ name: 'ci' })) },
      ok: linked(withRateLimit('The new key.', json(ref('NewApiKey')), '201'), { revokeKey: { id: '$response.body#/id' } }),
      codes: [...OWNER_CODES, ...BODY_CODES],
    }),
    operation('patch', '/api/v1/account/keys/{id}', {
      tag: 'api-keys',
      operationId: 'updateKey',
      summary: "Change an API key's name or settings",
      ...owner(),
      description:
        'Sets what the body gives and clears what it sets to null; the rest stays. The change is in force within one second on every API instance. ' +
        'A revoked key cannot be changed (404).',
      parameters: [paramRef('KeyId')],
      requestBody: {
        required: true,
        content: json(UpdateKeyBody, example({ tools: ['hash-text', 'network'], monthlyCreditLimit: 500, allowedIps: ['203.0.113.0/24'] })),
      },
      ok: withRateLimit('The key as it is now.', json(ref('ApiKey'))),
      codes: [...OWNER_CODES, ...BODY_CODES, 'not_found'],
    }),
    operation('delete', '/api/v1/account/keys/{id}', {
      tag: 'api-keys',
      operationId: 'revokeKey',
      summary: 'Revoke an API key',
      ...owner(),
      description: 'The key stops working within one second. Fires `api_key.revoked` once; revoking again answers the same.',
      parameters: [paramRef('KeyId')],
      ok: withRateLimit('The key is revoked.', json(ref('RevokedApiKey'))),
      codes: [...OWNER_CODES, 'not_found'],
    }),
  ];
}
