//! Waking an account's batch runner (workflows/batch-runner.ts): starting it if it is not running.
//! The API wakes it when a batch is made or cancelled, an item's call when it ends.
import type { Client } from '@temporalio/client';
import { BATCH_RUNNER_WAKE, TASK_QUEUES, WORKFLOW_TYPES, batchRunnerId, type BatchRunnerInput } from '../lib/temporal-shared.js';

export async function wakeBatchRunner(client: Client, accountId: string): Promise<void> {
  const args: [BatchRunnerInput] = [{ accountId }];
  await client.workflow.signalWithStart(WORKFLOW_TYPES.batchRunner, {
    workflowId: batchRunnerId(accountId),
    taskQueue: TASK_QUEUES.core,
    args,
    signal: BATCH_RUNNER_WAKE,
    signalArgs: [],
  });
}
