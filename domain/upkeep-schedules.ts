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

/** `billing`: payments are on (STRIPE_SECRET_KEY), so the billing upkeep runs too. */
export async function ensureSchedules(client: Client, options: { billing?: boolean } = {}): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: SWEEPER_SCHEDULE_ID,
      spec: { intervals: [{ every: '5m' }] },
      action: { type: 'startWorkflow', workflowType: WORKFLOW_TYPES.sweeper, taskQueue: TASK_QUEUES.core, workflowId: 'sweeper' },
      policies: { overlap: 'SKIP' },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  // Webhooks: re-sends events whose fan-out was cut short (domain/webhooks/fanout.ts).
  try {
    await client.schedule.create({
      scheduleId: WEBHOOK_REFAN_SCHEDULE_ID,
      spec: { intervals: [{ every: '1m' }] },
      action: {
        type: 'startWorkflow',
        workflowType: WORKFLOW_TYPES.webhookRefan,
        taskQueue: TASK_QUEUES.core,
        workflowId: 'webhook-refan',
      },
      policies: { overlap: 'SKIP' },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  // Monthly allowances and grant expiry (domain/plans/allowances.ts). The state is in the database, so a
  // run skipped (overlap, Temporal or the database down) is caught up by the next one.
  try {
    await client.schedule.create({
      scheduleId: ALLOWANCES_SCHEDULE_ID,
      spec: { intervals: [{ every: ALLOWANCES_EVERY }] },
      action: { type: 'startWorkflow', workflowType: WORKFLOW_TYPES.allowances, taskQueue: TASK_QUEUES.core, workflowId: 'allowances' },
      policies: { overlap: 'SKIP' },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  if (!options.billing) return;
  // Auto-recharges whose hand-off was cut short, and old Stripe signatures (domain/billing/).
  try {
    await client.schedule.create({
      scheduleId: BILLING_UPKEEP_SCHEDULE_ID,
      spec: { intervals: [{ every: '1m' }] },
      action: {
        type: 'startWorkflow',
        workflowType: WORKFLOW_TYPES.billingUpkeep,
        taskQueue: TASK_QUEUES.core,
        workflowId: 'billing-upkeep',
      },
      policies: { overlap: 'SKIP' },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
