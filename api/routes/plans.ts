//! The operator's plans (`Authorization: Bearer $ADMIN_TOKEN`): create, list, read and change them.
import Router from '@koa/router';
import { planView, PlanExistsError, type Plans } from '../../domain/plans/index.js';
import { randomBase62 } from '../../lib/ids.js';
import { ServiceError } from '../../contracts/errors.js';
import { requireAdmin } from '../auth.js';
import { readJsonObject } from '../body.js';
import { CreatePlanBody, UpdatePlanBody } from '../bodies/plans.js';
import { compileBodySchema } from '../validation.js';

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
