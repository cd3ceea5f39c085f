//! The operator's plans (`Authorization: Bearer $ADMIN_TOKEN`): create, list, read and change them.
import Router from '@koa/router';
import { DEFAULT_PLAN_ID, MAX_MONTHLY_ALLOWANCE, planView, PlanExistsError, type Plans } from '../../domain/plans/index.js';
import { randomBase62 } from '../../lib/ids.js';
import { ServiceError } from '../../contracts/errors.js';
import { requireAdmin } from '../auth.js';
import { readJsonObject } from '../body.js';
import { CreatePlanBody, UpdatePlanBody } from '../bodies/plans.js';
import { compileBodySchema } from '../validation.js';
import { json, paramRef } from '../docs/openapi-parts.js';
import { operation, admin, plain, example, ADMIN_CODES, BODY_CODES, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

/** A plan id from its name when the operator gives none: `Pro Monthly` -> `pro-monthly-x7q2`. */
function idFromName(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 30);
  return `${slug || 'plan'}-${randomBase62(4).toLowerCase()}`;
}

export function planRoutes(deps: { adminToken?: string; plans: Plans }): Router {
  const router = new Router({ prefix: '/api/v1/admin/plans' });
  const createPlan = compileBodySchema(CreatePlanBody);
  const updatePlan = compileBodySchema(UpdatePlanBody);

  router.use(requireAdmin(deps.adminToken));

  router.post('/', async (ctx) => {
    const body = createPlan(await readJsonObject(ctx));
    const { id, ...fields } = body;
    try {
      ctx.body = planView(await deps.plans.create(id ?? idFromName(fields.name), fields));
      ctx.status = 201;
    } catch (err) {
      if (err instanceof PlanExistsError) throw new ServiceError('already_exists', err.message);
      throw err;
    }
  });

  router.get('/', async (ctx) => {
    ctx.body = (await deps.plans.list()).map(planView);
  });

  router.get('/:id', async (ctx) => {
    const plan = await deps.plans.get(ctx.params.id!);
    if (!plan) throw new ServiceError('not_found', `There is no plan ${ctx.params.id}.`);
    ctx.body = planView(plan);
  });

  router.patch('/:id', async (ctx) => {
    const body = updatePlan(await readJsonObject(ctx));
    const plan = await deps.plans.update(ctx.params.id!, body);
    if (!plan) throw new ServiceError('not_found', `There is no plan ${ctx.params.id}.`);
    ctx.body = planView(plan);
  });

  return router;
}

/** The operations this router serves, as the OpenAPI document lists them. */
export function planOperations(): RouteOperation[] {
  return [
    operation('post', '/api/v1/admin/plans', {
      tag: 'operator',
      operationId: 'createPlan',
      summary: 'Create a plan',
      ...admin(),
      description: `A plan's allowance (at most ${MAX_MONTHLY_ALLOWANCE.toLocaleString('en-US')} credits) is granted to each account on it once a period, on the day of the month the account joined it. New accounts join \`${DEFAULT_PLAN_ID}\` unless given a plan.`,
      requestBody: {
        required: true,
        content: json(CreatePlanBody, example({ id: 'pro', name: 'Pro', monthlyAllowance: 5000, rollover: 'none' })),
      },
      ok: plain('The plan.', json(ref('Plan')), '201'),
      codes: [...ADMIN_CODES, ...BODY_CODES, 'already_exists'],
    }),
    operation('get', '/api/v1/admin/plans', {
      tag: 'operator',
      operationId: 'listPlans',
      summary: 'List plans',
      ...admin(),
      ok: plain('Every plan.', json({ type: 'array', items: ref('Plan') })),
      codes: ADMIN_CODES,
    }),
    operation('get', '/api/v1/admin/plans/{id}', {
      tag: 'operator',
      operationId: 'getPlan',
      summary: 'Get a plan',
      ...admin(),
      parameters: [paramRef('PlanId')],
      ok: plain('The plan.', json(ref('Plan'))),
      codes: ADMIN_CODES,
    }),
    operation('patch', '/api/v1/admin/plans/{id}', {
      tag: 'operator',
      operationId: 'updatePlan',
      summary: 'Change a plan',
      ...admin(),
      description: 'Accounts on the plan get the new allowance from their next period on.',
      parameters: [paramRef('PlanId')],
      requestBody: { required: true, content: json(UpdatePlanBody, example({ monthlyAllowance: 6000 })) },
      ok: plain('The plan.', json(ref('Plan'))),
      codes: [...ADMIN_CODES, ...BODY_CODES],
    }),
  ];
}
