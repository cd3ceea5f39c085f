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
import { MAX_EXPORT_DAYS, usageCsv, usageDayRange, usageKeyId, usagePeriod } from '../usage-export.js';
import type { RenderCache } from '../../domain/render-cache.js';
import type { Members } from '../../domain/teams/index.js';

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
    const limit = parseLimit(ctx.query.limit);
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
    const limit = parseLimit(ctx.query.limit);
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
