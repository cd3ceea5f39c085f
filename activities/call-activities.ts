//! What a tool pool's worker registers to run whole calls of its tools: the one step of a call of a
//! tool run within its workflow task, the separate ledger steps and tool activities of a queued
//! tool's call (and of calls started before calls were one step), the end of a call's key, the
//! outcome of an asynchronous call and that of a batch item.
import type { Db } from 'mongodb';
import type { Client } from '@temporalio/client';
import { createCallKeys, createCallCancellations } from '../domain/calls/index.js';
import { createLedger, type RechargeSink } from '../domain/ledger/index.js';
import type { CallRef } from '../contracts/call.js';
import { createCallOutcomes } from './call-outcome.js';
import type { EventSink } from '../domain/events/index.js';
import type { ToolHandler } from '../domain/tools/index.js';
import type { TargetGuard } from '../lib/target-guard.js';
import { createDestinationDelivery } from '../domain/destinations/index.js';
import { DatabaseBlobStore, type BlobStore } from '../lib/blob-store.js';
import { keepOutput } from '../lib/output-blobs.js';
import { createCallStep, type ToolDone } from './call-step.js';
import { toolActivities } from './tool-activities.js';
import { createBatchItemActivities } from './batch-items.js';
import { createSingleCalls, type SingleCalls } from './single-calls.js';
import type { MonitorRuns } from './monitor-runs.js';

export interface CallActivityOptions {
  /** Webhook fan-out of the events the ledger and asynchronous calls record. */
  onEvent?: EventSink;
  /** Told of every run of a tool inside a call's step (metrics). */
  onToolDone?: ToolDone;
  /** Where big outputs go (BLOB_STORE_URL); the database when absent. */
  blobs?: BlobStore;
  /** What writing files to the accounts' destinations takes; calls with a destination fail without it. */
  destinations?: { secretKey: Buffer; guard: TargetGuard };
  /**
   * Temporal, to start a batch's next item or wake its runner when one of its items ends, and
   * SECRET_KEY, to open the next item's secret fields; without them this worker cannot run batch items.
   * `yieldMs` (BATCH_YIELD_MS): how much later an item starts its successor while single calls run here.
   */
  batchItems?: { client: Client; secretKey: Buffer; yieldMs: number; eagerStarts?: boolean };
  /** The process's count of single calls running, shared by its pools (a count of these calls alone when absent). */
  singleCalls?: SingleCalls;
  /** Where a commit that makes an account's auto-recharge due hands it on (domain/billing/recharge-trigger.ts); none is noticed without it. */
  onRechargeDue?: RechargeSink;
  /** Judges monitors' runs (activities/monitor-runs.ts); without it a monitor's run is settled as any call and left unjudged. */
  monitorRuns?: Pick<MonitorRuns, 'begin' | 'record'>;
}

export function createCallActivities(db: Db, handlers: Record<string, ToolHandler>, options: CallActivityOptions = {}) {
  const ledger = createLedger(db, options.onEvent, { onRechargeDue: options.onRechargeDue });
  const callKeys = createCallKeys(db);
  const blobs = options.blobs ?? new DatabaseBlobStore(db);
  const keep = (output: unknown) => keepOutput(blobs, output);
  const deliver = options.destinations && createDestinationDelivery({ db, ...options.destinations });
  const singleCalls = options.singleCalls ?? createSingleCalls();
  const batchItems = options.batchItems && createBatchItemActivities({ db, ...options.batchItems, singleCalls, onEvent: options.onEvent });
  return {
    ...toolActivities(handlers, { callKeys, keepOutput: keep }),
    ...createCallStep({
      handlers,
      ledger,
      callKeys,
      onToolDone: options.onToolDone,
      keepOutput: keep,
      deliver,
      singleCalls,
      recordBatchItem: batchItems?.record,
      cancelledByClient: createCallCancellations(db).isMarked,
      monitorRuns: options.monitorRuns,
    }),
    reserve: (call: CallRef) => ledger.reserve(call),
    commit: (call: CallRef) => ledger.commit(call),
    refund: (call: CallRef) => ledger.refund(call),
    destroyCallKey: (requestId: string) => callKeys.destroy(requestId),
    ...createCallOutcomes({ db, blobs, onEvent: options.onEvent }),
    ...batchItems?.activities,
  };
}
