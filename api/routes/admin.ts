//! The operator API (`Authorization: Bearer $ADMIN_TOKEN`): open accounts, read them, grant credits,
//! move an account to another plan.
import Router from '@koa/router';
import type { Accounts } from '../../domain/accounts/index.js';
import { type Allowances, joinPlan, DEFAULT_PLAN_ID, type Plans } from '../../domain/plans/index.js';
import { grantView, type Grants } from '../../domain/ledger/index.js';
import type { AccountDoc, GrantDoc } from '../../domain/account-documents.js';
import { requireAdmin } from '../auth.js';
import { operatorActing } from '../audit-context.js';
import { readJsonObject } from '../body.js';
import { ChangePlanBody, CreateAccountBody, GrantCreditsBody } from '../bodies/admin.js';
import { ServiceError } from '../../contracts/errors.js';
import { accountPlanView } from '../plan-view.js';
import { viewOf } from '../../lib/mongo.js';
import { compileBodySchema, validationProblem } from '../validation.js';

/** How far back an account's plan may be said to have started: at most one period. */
const PLAN_START_LOOKBACK_MS = 31 * 24 * 3600 * 1000;

export interface AdminDeps {
  adminToken?: string;
  accounts: Accounts;
  grants: Grants;
  plans: Plans;
  allowances: Allowances;
  freeCredits: number;
}

export function adminRoutes(deps: AdminDeps): Router {
  const router = new Router({ prefix: '/api/v1/admin' });
  const createAccount = compileBodySchema(CreateAccountBody);
  const grantCredits = compileBodySchema(GrantCreditsBody);
  const changePlan = compileBodySchema(ChangePlanBody);

  router.use(requireAdmin(deps.adminToken));

  async function existing(id: string): Promise<AccountDoc> {
    const account = await deps.accounts.get(id);
    if (!account) throw new ServiceError('not_found', `There is no account ${id}.`);
    return account;
  }

  async function knownPlan(id: string) {
    const plan = await deps.plans.get(id);
    if (!plan) throw validationProblem([{ field: '/plan', message: `is not a known plan (${id})` }]);
    return plan;
  }

  async function accountView(a: AccountDoc) {
    return { ...viewOf(a, ['name', 'email', 'balance', 'createdAt']), ...(await accountPlanView(deps.allowances, a)) };
  }

  router.post('/accounts', async (ctx) => {
    const body = createAccount(await readJsonObject(ctx, undefined, { allowEmpty: true }));
    const now = Date.now();
    const plan = await knownPlan(body.plan ?? DEFAULT_PLAN_ID);
    const anchor = body.planStartsAt ? new Date(body.planStartsAt) : new Date(now);
    if (anchor.getTime() > now) throw validationProblem([{ field: '/planStartsAt', message: 'is in the future' }]);
    if (anchor.getTime() < now - PLAN_START_LOOKBACK_MS)
      throw validationProblem([{ field: '/planStartsAt', message: 'is more than 31 days ago' }]);
    const opened = await deps.accounts.open(
      { name: body.name, email: body.email, credits: body.credits ?? deps.freeCredits, plan: joinPlan(plan._id, anchor) },
      operatorActing(ctx),
    );
    // The first period's allowance now; were this cut short, the scheduled run grants it.
    await deps.allowances.grantDue(opened.account._id, now);
    const account = await existing(opened.account._id);
    ctx.status = 201;
    ctx.body = {
      account: { id: account._id, name: account.name, balance: account.balance, plan: plan._id },
      ownerToken: opened.ownerToken,
      apiKey: { id: opened.apiKey.id, prefix: opened.apiKey.prefix, key: opened.apiKey.key },
    };
  });

  router.get('/accounts/:id', async (ctx) => {
    ctx.body = await accountView(await existing(ctx.params.id!));
  });

  router.put('/accounts/:id/plan', async (ctx) => {
    const body = changePlan(await readJsonObject(ctx));
    const account = await existing(ctx.params.id!);
    await knownPlan(body.plan);
    await deps.allowances.changePlan(account._id, body.plan, {
      prorate: body.prorate ?? false,
      now: Date.now(),
      audit: operatorActing(ctx),
    });
    ctx.body = await accountView(await existing(account._id));
  });

  router.post('/accounts/:id/credits', async (ctx) => {
    const body = grantCredits(await readJsonObject(ctx));
    const now = Date.now();
    const expiresAt = body.expiresAt ? new Date(body.expiresAt) : null;
    const account = await existing(ctx.params.id!);
    if (body.idempotencyKey) {
      const first = await deps.grants.byKey(account._id, body.idempotencyKey);
      if (first && !sameGrant(first, body.amount, body.reason, expiresAt)) {
        throw new ServiceError('idempotency_conflict', 'This idempotencyKey was used for a grant with another amount, reason or expiry.');
      }
    }
    // Only a new grant must lie ahead: a repeat answers the first, whose expiry may have passed since.
    if (expiresAt && expiresAt.getTime() <= now && !(body.idempotencyKey && (await deps.grants.byKey(account._id, body.idempotencyKey)))) {
      throw validationProblem([{ field: '/expiresAt', message: 'is in the past' }]);
    }
    const outcome = await deps.grants.grant(
      {
        accountId: account._id,
        amount: body.amount,
        reason: body.reason,
        expiresAt,
        idempotencyKey: body.idempotencyKey ?? null,
        audit: operatorActing(ctx),
      },
      now,
    );
    if (outcome.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = { balance: outcome.balance, grant: grantView(outcome.grant) };
  });

  return router;
}

function sameGrant(first: GrantDoc, amount: number, reason: string, expiresAt: Date | null): boolean {
  return first.amount === amount && first.reason === reason && (first.expiresAt?.getTime() ?? null) === (expiresAt?.getTime() ?? null);
}
