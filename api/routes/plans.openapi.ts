//! The OpenAPI operations of the operator's plans (`api/routes/plans.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { DEFAULT_PLAN_ID, MAX_MONTHLY_ALLOWANCE } from '../../domain/plans/index.js';
import { CreatePlanBody, UpdatePlanBody } from '../bodies/plans.js';
import { json, paramRef } from '../docs/openapi-parts.js';
import { operation, admin, plain, example, ADMIN_CODES, BODY_CODES, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

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
