//! An account's plan and next allowance as the account and operator APIs show them.
import type { Allowances } from '../domain/plans/index.js';
import type { AccountDoc } from '../domain/account-documents.js';

export async function accountPlanView(allowances: Allowances, account: AccountDoc) {
  const { plan, next } = await allowances.next(account.plan);
  return {
    plan: plan ? { id: plan._id, name: plan.name, monthlyAllowance: plan.monthlyAllowance, rollover: plan.rollover } : null,
    /** The anniversary: the day of the month the account joined its plan. */
    planSince: account.plan?.anchor ?? null,
    nextAllowance: next,
  };
}
