//! The account API (`Authorization: Bearer <ownerToken>`): what the dashboard uses.
import Router from '@koa/router';
import type { Db } from 'mongodb';
import { publicKey, type Accounts } from '../../domain/accounts.js';
import { collections } from '../../lib/mongo.js';
import { LOW_BALANCE_THRESHOLD } from '../../domain/ledger.js';
import type { Authenticator } from '../auth.js';
import { readJsonObject } from '../body.js';
import { BODY_SCHEMAS } from '../body-schemas.js';
import { ToolError } from '../../lib/errors.js';
import { decodeCursor, encodeCursor, parseLimit } from '../paging.js';
import { compileBodySchema } from '../validation.js';
import type { Middleware } from 'koa';

const USAGE_DEFAULT_LIMIT = 50;
const USAGE_MAX_LIMIT = 200;

export function accountRoutes(deps: { db: Db; auth: Authenticator; rateLimit: Middleware; accounts: Accounts }): Router {
  const router = new Router({ prefix: '/api/v1/account' });
  const { ledger } = collections(deps.db);
  const createKey = compileBodySchema(BODY_SCHEMAS.createKey);

  router.use(deps.auth.require('owner_token'), deps.rateLimit);

  router.get('/', async (ctx) => {
    const a = await deps.accounts.get(ctx.state.principal.accountId);
    if (!a) throw new ToolError('not_found', 'The account no longer exists.');
    ctx.body = { id: a._id, name: a.name, balance: a.balance, lowBalanceThreshold: LOW_BALANCE_THRESHOLD, createdAt: a.createdAt };
  });

  router.get('/usage', async (ctx) => {
    const limit = parseLimit(ctx.query.limit, USAGE_DEFAULT_LIMIT, USAGE_MAX_LIMIT);
    const accountId = ctx.state.principal.accountId as string;
    const filter: Record<string, unknown> = { accountId };
    if (typeof ctx.query.cursor === 'string') {
      const c = decodeCursor(ctx.query.cursor);
      filter.$or = [{ at: { $lt: c.at } }, { at: c.at, _id: { $lt: c.id } }];
    }
    const rows = await ledger.find(filter).sort({ at: -1, _id: -1 }).limit(limit + 1).toArray();
    const page = rows.slice(0, limit);
    ctx.body = {
      items: page.map((r) => ({ requestId: r._id, tool: r.tool, credits: r.credits, outcome: r.outcome, at: r.at })),
      nextCursor: rows.length > limit ? encodeCursor(page.at(-1)!.at, page.at(-1)!._id) : null,
    };
  });

  router.get('/keys', async (ctx) => {
    ctx.body = (await deps.accounts.listKeys(ctx.state.principal.accountId)).map(publicKey);
  });

  router.post('/keys', async (ctx) => {
    const body = createKey(await readJsonObject(ctx, undefined, { allowEmpty: true })) as { name?: string };
    const key = await deps.accounts.createKey(ctx.state.principal.accountId, body.name ?? null);
    ctx.status = 201;
    ctx.body = key;
  });

  router.delete('/keys/:id', async (ctx) => {
    const revoked = await deps.accounts.revokeKey(ctx.state.principal.accountId, ctx.params.id!);
    if (!revoked) throw new ToolError('not_found', `There is no key ${ctx.params.id} on this account.`);
    deps.auth.forget(revoked.digest);
    ctx.body = { id: revoked.doc._id, revokedAt: revoked.doc.revokedAt };
  });

  return router;
}
