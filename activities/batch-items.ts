//! What a tool pool's worker registers for a batch item's call: its last step, which records the
//! call's outcome on the item (domain/batch-progress.ts) and wakes the account's batch runner, whose
//! slot the item held.
import type { Db } from 'mongodb';
import type { Client } from '@temporalio/client';
import { createBatchProgress, type BatchItemOutcome } from '../domain/batch-progress.js';
import { wakeBatchRunner } from '../domain/batch-wake.js';
import type { EventSink } from '../domain/events.js';

export function createBatchItemActivities(deps: { db: Db; client: Client; onEvent?: EventSink }) {
  const progress = createBatchProgress(deps.db, deps.onEvent);
  return {
    async recordBatchItem(outcome: BatchItemOutcome & { accountId: string }): Promise<void> {
      await progress.finishItem(outcome);
      await wakeBatchRunner(deps.client, outcome.accountId);
    },
  };
}

export type BatchItemActivities = ReturnType<typeof createBatchItemActivities>;
