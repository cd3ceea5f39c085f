//! The operator API (`Authorization: Bearer $ADMIN_TOKEN`): open accounts, read them, grant credits.
import Router from '@koa/router';
import type { Accounts } from '../../domain/accounts.js';
import type { AccountDoc } from '../../lib/mongo.js';
import type { GrantReason, Ledger } from '../../domain/ledger.js';
import { requireAdmin } from '../auth.js';
import { readJsonObject } from '../body.js';
import { BODY_SCHEMAS } from '../body-schemas.js';
import { ToolError } from '../../lib/errors.js';
import { compileBodySchema } from '../validation.js';

export function adminAccountView(a: AccountDoc) {
  return { id: a._id, name: a.name, email: a.email, balance: a.balance, createdAt: a.createdAt };
}

export function adminRoutes(deps: { adminToken?: string; accounts: Accounts; ledger: Ledger; freeCredits: number }): Router {
  const router = new Router({ prefix: '/api/v1/admin' });
  const createAccount = compileBodySchema(BODY_SCHEMAS.createAccount);
  const grantCredits = compileBodySchema(BODY_SCHEMAS.grantCredits);

  router.use(requireAdmin(deps.adminToken));

  async function existing(id: string): Promise<AccountDoc> {
    const account = await deps.accounts.get(id);
    if (!account) throw new ToolError('not_found', `There is no account ${id}.`);
    return account;
  }

  router.post('/accounts', async (ctx) => {
    const body = createAccount(await readJsonObject(ctx, undefined, { allowEmpty: true })) as { name?: string; email?: string; credits?: number };
    const opened = await deps.accounts.open({ name: body.name, email: body.email, credits: body.credits ?? deps.freeCredits });
    ctx.status = 201;
    ctx.body = {
      account: { id: opened.account._id, name: opened.account.name, balance: opened.account.balance },
      ownerToken: opened.ownerToken,
      apiKey: { id: opened.apiKey.id, prefix: opened.apiKey.prefix, key: opened.apiKey.key },
    };
  });

  router.get('/accounts/:id', async (ctx) => {
    ctx.body = adminAccountView(await existing(ctx.params.id!));
  });

  router.post('/accounts/:id/credits', async (ctx) => {
    const body = grantCredits(await readJsonObject(ctx)) as { amount: number; reason: GrantReason };
    const account = await existing(ctx.params.id!);
    ctx.body = await deps.ledger.grant(account._id, body.amount, body.reason);
  });

  return router;
}
