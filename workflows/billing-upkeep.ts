//! Run by a Temporal Schedule every minute while payments are on: hands on auto-recharges whose
//! hand-off was cut short, and forgets Stripe signatures past their tolerance.
import { proxyActivities } from '@temporalio/workflow';
import type { BillingActivities } from '../activities/core/billing.js';

const { billingUpkeep: upkeep } = proxyActivities<BillingActivities>({ startToCloseTimeout: '5m', retry: { maximumAttempts: 3 } });

export async function billingUpkeep(): Promise<{ woken: number; forgotten: number }> {
  return upkeep();
}
