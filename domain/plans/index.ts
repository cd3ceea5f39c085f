//! Plans (domain/plans/): the plans, their monthly periods and the allowance granted each period.
export { createAllowances, joinPlan, type Allowances } from './allowances.js';
export {
  DEFAULT_PLAN_ID,
  MAX_MONTHLY_ALLOWANCE,
  PlanExistsError,
  ROLLOVERS,
  createPlans,
  planView,
  type PlanFields,
  type Plans,
} from './plans.js';
