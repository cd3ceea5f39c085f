//! Waking an account's batch runner (workflows/batch-runner.ts): starting it if it is not running.
//! The API wakes it when a batch is made or cancelled, an item's call when it ends, a grant when
//! the account has a batch paused for credits.
import type { Db } from 'mongodb';
import type { Client } from '@temporalio/client';
import { collections } from '../../lib/mongo.js';
import { wakeWorkflow } from '../../lib/workflow-wake.js';
import type { EventSink } from '../events/index.js';
import { BATCH_RUNNER_WAKE, batchRunnerId, type BatchRunnerInput } from '../../contracts/batch.js';
import { WORKFLOW_TYPES } from '../../contracts/temporal-names.js';

export async function wakeBatchRunner(client: Client, accountId: string): Promise<void> {
  const input: BatchRunnerInput = { accountId };
  // Not in the waking request's trace (a batch's items join their batch's trace).
  await wakeWorkflow(client, WORKFLOW_TYPES.batchRunner, {
    workflowId: batchRunnerId(accountId),
    args: [input],
    signal: BATCH_RUNNER_WAKE,
  });
}

/**
 * An event sink that wakes the account's batch runner when credits are granted to an account with
 * a batch paused for them, then hands the event on to `next` (the webhook fan-out). The runner
 * resumes what the balance now covers; without this wake it would look within a minute anyway.
 */
export function resumingOnGrant(db: Db, client: Client, next?: EventSink): EventSink {
  const { batches } = collections(db);
  return async (event) => {
    if (
      event.event === 'credits.granted' &&
      (await batches.findOne({ accountId: event.accountId, status: 'paused' }, { projection: { _id: 1 } }))
    ) {
      await wakeBatchRunner(client, event.accountId).catch(() => undefined); // the runner's own look covers a failed wake
    }
    await next?.(event);
  };
}
