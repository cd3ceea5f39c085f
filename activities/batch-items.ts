//! The end of a batch item's call, done by the call's step (activities/call-step.ts) or, for calls
//! whose step did not, by a local activity of its own: it records the call's outcome on the item
//! (domain/batches/progress.ts) and hands the item's slot on to the next item of its batch, starting
//! that item's call, so a batch runs on without its runner; only when nothing was handed on (the
//! batch has nothing left to start, is paused or stopped) is the account's batch runner woken to
//! look. While single calls run on this worker, the next item's call starts `yieldMs` later
//! (Temporal's start delay): each of the batch's lanes then leaves the machine to them for that long
//! between items, so someone waiting on a call is not queued behind bulk work on every core, the
//! database and the Temporal server. Alone, a batch runs at full speed.
import type { Db } from 'mongodb';
import type { Client } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { createBatchProgress, type BatchItemOutcome, wakeBatchRunner } from '../domain/batches/index.js';
import type { EventSink } from '../domain/events/index.js';
import { createBatchStarter } from './batch-start.js';
import type { SingleCalls } from './single-calls.js';

export interface BatchItemDeps {
  db: Db;
  client: Client;
  secretKey: Buffer;
  /** BATCH_YIELD_MS: the start delay of a successor while single calls run here (0: none). */
  yieldMs: number;
  /**
   * `client` shares this worker's connection (a NativeConnection), so a successor may be started
   * eagerly, its first task handed to this worker in the start's answer (activities/batch-start.ts).
   */
  eagerStarts?: boolean;
  singleCalls: SingleCalls;
  onEvent?: EventSink;
}

/** A batch item's call as it ended, and whose it was. */
export type BatchItemRecord = BatchItemOutcome & { accountId: string };

export function createBatchItemActivities(deps: BatchItemDeps) {
  const progress = createBatchProgress(deps.db, deps.onEvent);
  const starter = createBatchStarter(deps);

  /** `retried`: an earlier run may have recorded it (domain/batches/progress.ts, finishItem). */
  async function record(outcome: BatchItemRecord, retried: boolean): Promise<void> {
    const next = await progress.finishItem(outcome, new Date(), retried);
    if (next) await starter.start(next.batch, next.item, deps.singleCalls.busy() ? { delayMs: deps.yieldMs } : { eager: deps.eagerStarts });
    else await wakeBatchRunner(deps.client, outcome.accountId);
  }

  return {
    record,
    activities: {
      /** The record as a local activity of its own: calls whose step did not record it (started before steps did). */
      recordBatchItem(outcome: BatchItemRecord): Promise<void> {
        return record(outcome, Context.current().info.attempt > 1);
      },
    },
  };
}

export type BatchItemActivities = ReturnType<typeof createBatchItemActivities>['activities'];
