//! The account API (`Authorization: Bearer <ownerToken>`): what the dashboard uses.
import { batchOfRequestId } from '../../contracts/batch.js';
import Router from '@koa/router';
import type { Db } from 'mongodb';
import { publicKey, type Accounts, keySettingsView, settingProblems, type KeySettingsInput } from '../../domain/accounts/index.js';
import { collections } from '../../lib/mongo.js';
import type { LedgerEntry } from '../../domain/account-documents.js';
import { LOW_BALANCE_THRESHOLD, type Grants } from '../../domain/ledger/index.js';
import type { Authenticator } from '../auth.js';
import { readJsonObject } from '../body.js';
import { CreateKeyBody, UpdateKeyBody } from '../bodies/account.js';
import { ServiceError } from '../../contracts/errors.js';
import { decodeCursor, encodeCursor, parseLimit } from '../paging.js';
import { compileBodySchema, validationProblem } from '../validation.js';
import { ownerActing } from '../audit-context.js';
import type { Middleware } from 'koa';
import type { Allowances } from '../../domain/plans/index.js';
import { accountPlanView } from '../plan-view.js';
import { MAX_EXPORT_DAYS, MAX_EXPORT_ROWS, usageCsv, usageDayRange, usageKeyId, usagePeriod } from '../usage-export.js';
import type { RenderCache } from '../../domain/render-cache.js';
import type { Members } from '../../domain/teams/index.js';
import { json, paramRef } from '../docs/openapi-parts.js';
import { operation, owner, withRateLimit, linked, example, OWNER_CODES, BODY_CODES, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

const USAGE_DEFAULT_LIMIT = 50;
const USAGE_MAX_LIMIT = 200;
const GRANTS_DEFAULT_LIMIT = 50;
const GRANTS_MAX_LIMIT = 200;

/** A usage row: a call (charged or refunded) or an expiry of a grant's remainder. */
const usageItem = (r: LedgerEntry) => {
  const batchId = batchOfRequestId(r._id);
  return {
    requestId: r._id,
    tool: r.tool,
    credits: r.credits,
    outcome: r.outcome,
    at: r.at,
    ...(r.grantId ? { grantId: r.grantId } : {}),
    // A monitor's run counts in its monitor's monthly spending as a key's call counts in the key's.
    ...(r.keyId ? (r.via === 'monitor' ? { monitorId: r.keyId } : { keyId: r.keyId }) : {}),
    ...(r.via ? { via: r.via } : {}),
    ...(batchId ? { batchId } : {}),
  };
};

export function accountRoutes(deps: {
  db: Db;
  auth: Authenticator;
  rateLimit: Middleware;
  accounts: Accounts;
  grants: Grants;
  allowances: Allowances;
  /** The render cache's hits per day, shown beside the usage. */
  renderCache: Pick<RenderCache, 'days'>;
  /** Who made each key (domain/teams/members.ts). */
  members: Pick<Members, 'makers'>;
  /** RATE_LIMIT_PER_SECOND: the most a key's own rateLimit may be. */
  accountRate: number;
}): Router {
  const router = new Router({ prefix: '/api/v1/account' });
  const { ledger } = collections(deps.db);
  const createKey = compileBodySchema(CreateKeyBody);
  const updateKey = compileBodySchema(UpdateKeyBody);

  router.use(deps.auth.require('owner_token'), deps.rateLimit);

  router.get('/', async (ctx) => {
    const a = await deps.accounts.get(ctx.state.principal.accountId);
    if (!a) throw new ServiceError('not_found', 'The account no longer exists.');
    ctx.body = {
      id: a._id,
      name: a.name,
      balance: a.balance,
      lowBalanceThreshold: LOW_BALANCE_THRESHOLD,
      createdAt: a.createdAt,
      ...(await accountPlanView(deps.allowances, a)),
    };
  });

  router.get('/grants', async (ctx) => {
    const limit = parseLimit(ctx.query.limit, GRANTS_DEFAULT_LIMIT, GRANTS_MAX_LIMIT);
    const before = typeof ctx.query.cursor === 'string' ? decodeCursor(ctx.query.cursor) : undefined;
    const { items, more } = await deps.grants.list(ctx.state.principal.accountId, { limit, before });
    ctx.body = { items, nextCursor: more && items.length ? encodeCursor(items.at(-1)!.createdAt, items.at(-1)!.id) : null };
  });

  router.get('/usage', async (ctx) => {
    const accountId = ctx.state.principal.accountId as string;
    const period = usagePeriod(ctx.query.from, ctx.query.to);
    const keyId = usageKeyId(ctx.query.keyId);
    // CSV: the whole period at once, oldest first, for a statement or a spreadsheet.
    if (ctx.accepts('application/json', 'text/csv') === 'text/csv') {
      const { csv, filename } = await usageCsv(ledger, accountId, period, keyId);
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
      ctx.body = csv;
      return;
    }
    const limit = parseLimit(ctx.query.limit, USAGE_DEFAULT_LIMIT, USAGE_MAX_LIMIT);
    const filter: Record<string, unknown> = { accountId, ...(period.filter ? { at: period.filter } : {}), ...(keyId ? { keyId } : {}) };
    if (typeof ctx.query.cursor === 'string') {
      const c = decodeCursor(ctx.query.cursor);
      filter.$or = [{ at: { $lt: c.at } }, { at: c.at, _id: { $lt: c.id } }];
    }
    const [rows, cacheDays] = await Promise.all([
      ledger
        .find(filter)
        .sort({ at: -1, _id: -1 })
        .limit(limit + 1)
        .toArray(),
      // Hits are not calls: the account's, whatever key or page is asked for.
      deps.renderCache.days(accountId, MAX_EXPORT_DAYS, usageDayRange(period)),
    ]);
    const page = rows.slice(0, limit);
    ctx.body = {
      items: page.map(usageItem),
      nextCursor: rows.length > limit ? encodeCursor(page.at(-1)!.at, page.at(-1)!._id) : null,
      days: cacheDays.map((d) => ({ day: d.day, cacheHits: d.hits, creditsSaved: d.creditsSaved })),
    };
  });

  router.get('/keys', async (ctx) => {
    const accountId = ctx.state.principal.accountId as string;
    const [keys, spend] = await Promise.all([deps.accounts.listKeys(accountId), deps.accounts.keySpend(accountId)]);
    const makers = await deps.members.makers(accountId, keys);
    ctx.body = keys.map((k) => ({ ...publicKey(k, spend), maker: makers.get(k._id) ?? null }));
  });

  /** The body's settings, checked beyond the schema (an expiry in the past, a bad CIDR, a rate above the account's). */
  const keySettingsOf = (body: KeySettingsInput): KeySettingsInput => {
    const problems = settingProblems(body, { now: Date.now(), accountRate: deps.accountRate });
    if (problems.length) throw validationProblem(problems);
    return body;
  };

  router.post('/keys', async (ctx) => {
    const body = keySettingsOf(createKey(await readJsonObject(ctx, undefined, { allowEmpty: true })));
    const { doc, ...key } = await deps.accounts.createKey(ctx.state.principal.accountId, body.name ?? null, body, ownerActing(ctx));
    ctx.status = 201;
    ctx.body = { ...key, ...keySettingsView(doc) };
  });

  router.patch('/keys/:id', async (ctx) => {
    const body = keySettingsOf(updateKey(await readJsonObject(ctx)));
    const accountId = ctx.state.principal.accountId as string;
    const changed = await deps.accounts.updateKey(accountId, ctx.params.id!, body, ownerActing(ctx));
    if (!changed) throw new ServiceError('not_found', `There is no working key ${ctx.params.id} on this account.`);
    // This instance sees the change at once; the others within their cache's half second.
    deps.auth.forget(changed.after.digest);
    const makers = await deps.members.makers(accountId, [changed.after]);
    ctx.body = { ...publicKey(changed.after, await deps.accounts.keySpend(accountId)), maker: makers.get(changed.after._id) ?? null };
  });

  router.delete('/keys/:id', async (ctx) => {
    const revoked = await deps.accounts.revokeKey(ctx.state.principal.accountId, ctx.params.id!, ownerActing(ctx));
    if (!revoked) throw new ServiceError('not_found', `There is no key ${ctx.params.id} on this account.`);
    deps.auth.forget(revoked.digest);
    ctx.body = { id: revoked.doc._id, revokedAt: revoked.doc.revokedAt };
  });

  return router;
}

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
