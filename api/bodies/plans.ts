//! The plan routes' request bodies (api/routes/plans.ts): validation, OpenAPI and types in one.
import { type Static, Type } from '@sinclair/typebox';
import { MAX_MONTHLY_ALLOWANCE, ROLLOVERS } from '../../domain/plans/index.js';
import { ClosedObject, StringEnum } from '../../lib/schema-types.js';

const PLAN_ID = { pattern: '^[a-z0-9][a-z0-9-]{0,39}$', description: "The plan's id: lowercase letters, digits and dashes." };
/** A plan's id, described as the field that holds it says (`description` replaces the generic one). */
export const planId = (description = PLAN_ID.description) => Type.String({ ...PLAN_ID, description });

const name = Type.String({ minLength: 1, maxLength: 100, description: "The plan's name, as owners see it." });
const monthlyAllowance = Type.Integer({
  minimum: 0,
  maximum: MAX_MONTHLY_ALLOWANCE,
  description: `Credits an account on the plan gets each month, on its anniversary (0 to ${MAX_MONTHLY_ALLOWANCE.toLocaleString('en-US')}).`,
});
const rollover = StringEnum(ROLLOVERS, {
  description: "`none`: the unused part of a month's allowance lapses when the next period starts. `keep`: it stays until spent.",
});

export const CreatePlanBody = ClosedObject({
  id: Type.Optional(planId(`${PLAN_ID.description} Generated from the name when omitted.`)),
  name,
  monthlyAllowance,
  rollover,
});
export type CreatePlanBody = Static<typeof CreatePlanBody>;

export const UpdatePlanBody = ClosedObject(
  { name: Type.Optional(name), monthlyAllowance: Type.Optional(monthlyAllowance), rollover: Type.Optional(rollover) },
  { minProperties: 1 },
);
export type UpdatePlanBody = Static<typeof UpdatePlanBody>;
