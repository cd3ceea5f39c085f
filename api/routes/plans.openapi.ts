//! The OpenAPI operations of the operator's plans (`api/routes/plans.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { DEFAULT_PLAN_ID, MAX_MONTHLY_ALLOWANCE } from '../../domain/plans/index.js';
import { CreatePlanBody, UpdatePlanBody } from '../bodies/plans.js';
import { json } from '../docs/openapi-parts.js';
import { ADMIN, BODY_CODES, jsonBody, plain, resource, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function planOperations(): RouteOperation[] {
  const operation = resource('operator', ADMIN, 'PlanId');
  return [
    operation('post', '/api/v1/admin/plans', {
      operationId: 'createPlan',
      summary: 'Create a plan',
      description: `A plan's allowance (at most ${MAX_MONTHLY_ALLOWANCE.toLocaleString('en-US')} credits) is granted to each account on it once a period, on the day of the month the account joined it. New accounts join \`${DEFAULT_PLAN_ID}\` unless given a plan.`,
      requestBody: jsonBody(CreatePlanBody, { id: 'pro', name: 'Pro', monthlyAllowance: 5000, rollover: 'none' }),
      ok: plain('The plan.', json(ref('Plan')), '201'),
      codes: [...BODY_CODES, 'already_exists'],
    }),
    operation('get', '/api/v1/admin/plans', {
      operationId: 'listPlans',
      summary: 'List plans',
      ok: plain('Every plan.', json({ type: 'array', items: ref('Plan') })),
    }),
    operation('get', '/api/v1/admin/plans/{id}', {
      operationId: 'getPlan',
      summary: 'Get a plan',
      ok: plain('The plan.', json(ref('Plan'))),
    }),
    operation('patch', '/api/v1/admin/plans/{id}', {
      operationId: 'updatePlan',
      summary: 'Change a plan',
      description: 'Accounts on the plan get the new allowance from their next period on.',
      requestBody: jsonBody(UpdatePlanBody, { monthlyAllowance: 6000 }),
      ok: plain('The plan.', json(ref('Plan'))),
      codes: [...BODY_CODES],
    }),
  ];
}
