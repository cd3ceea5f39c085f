//! Temporal Schedules the service needs; created idempotently at API start.
import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';
import { TASK_QUEUES, WORKFLOW_TYPES } from '../contracts/temporal-names.js';

export const SWEEPER_SCHEDULE_ID = 'sweeper';
export const WEBHOOK_REFAN_SCHEDULE_ID = 'webhook-refan';
export const ALLOWANCES_SCHEDULE_ID = 'allowances';
export const BILLING_UPKEEP_SCHEDULE_ID = 'billing-upkeep';
/**
 * How often the allowance run looks for due periods and lapsed grants: an allowance arrives at most
 * this long after its anniversary. (Spending never waits for it: a reserve expires lapsed grants itself.)
 */
export const ALLOWANCES_EVERY = '5m';

/** An upkeep run: its schedule (whose id its runs' workflow ids take too), the workflow it starts and how often. */
interface Upkeep {
  id: string;
  workflowType: string;
  every: string;
  /** Only while payments are on. */
  billing?: true;
}

const UPKEEPS: readonly Upkeep[] = [
  { id: SWEEPER_SCHEDULE_ID, workflowType: WORKFLOW_TYPES.sweeper, every: '5m' },
  // Webhooks: re-sends events whose fan-out was cut short (domain/webhooks/fanout.ts).
  { id: WEBHOOK_REFAN_SCHEDULE_ID, workflowType: WORKFLOW_TYPES.webhookRefan, every: '1m' },
  // Monthly allowances and grant expiry (domain/plans/allowances.ts). The state is in the database, so a
  // run skipped (overlap, Temporal or the database down) is caught up by the next one.
  { id: ALLOWANCES_SCHEDULE_ID, workflowType: WORKFLOW_TYPES.allowances, every: ALLOWANCES_EVERY },
  // Auto-recharges whose hand-off was cut short, and old Stripe signatures (domain/billing/).
  { id: BILLING_UPKEEP_SCHEDULE_ID, workflowType: WORKFLOW_TYPES.billingUpkeep, every: '1m', billing: true },
];

/** `billing`: payments are on (STRIPE_SECRET_KEY), so the billing upkeep runs too. */
export async function ensureSchedules(client: Client, options: { billing?: boolean } = {}): Promise<void> {
  for (const upkeep of UPKEEPS) {
    if (upkeep.billing && !options.billing) continue;
    try {
      await client.schedule.create({
        scheduleId: upkeep.id,
        spec: { intervals: [{ every: upkeep.every }] },
        action: { type: 'startWorkflow', workflowType: upkeep.workflowType, taskQueue: TASK_QUEUES.core, workflowId: upkeep.id },
        policies: { overlap: 'SKIP' },
      });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
  }
}
