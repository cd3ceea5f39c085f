//! Temporal Schedules the service needs; created idempotently at API start.
import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';
import { TASK_QUEUES, WORKFLOW_TYPES } from './temporal-shared.js';

export const SWEEPER_SCHEDULE_ID = 'sweeper';

export async function ensureSchedules(client: Client): Promise<void> {
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
}
