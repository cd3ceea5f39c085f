//! What a tool pool's worker registers for a batch item's call: its last step, which records the
//! call's outcome on the item (domain/batch-progress.ts) and hands the item's slot on to the next
//! item of its batch, starting that item's call, so a batch runs on without its runner; only when
//! nothing was handed on (the batch has nothing left to start, is paused or stopped) is the
//! account's batch runner woken to look.
import type { Db } from 'mongodb';
import type { Client } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { createBatchProgress, type BatchItemOutcome } from '../domain/batch-progress.js';
import { wakeBatchRunner } from '../domain/batch-wake.js';
import type { EventSink } from '../domain/events.js';
import { createBatchStarter } from './batch-start.js';

export function createBatchItemActivities(deps: { db: Db; client: Client; secretKey: Buffer; onEvent?: EventSink }) {
  const progress = createBatchProgress(deps.db, deps.onEvent);
  const starter = createBatchStarter(deps);
  return {
    async recordBatchItem(outcome: BatchItemOutcome & { accountId: string }): Promise<void> {
      const next = await progress.finishItem(outcome, new Date(), Context.current().info.attempt > 1);
      if (next) await starter.start(next.batch, next.item);
      else await wakeBatchRunner(deps.client, outcome.accountId);
    },
  };
}

export type BatchItemActivities = ReturnType<typeof createBatchItemActivities>;
