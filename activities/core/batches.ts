//! The batch runner's one activity: fills an account's free batch slots (BATCH_CONCURRENCY, all
//! its batches together) with the next items, oldest batch first. Each item starts as the call it
//! would have been, the `toolCall` workflow on its tool's queue, with `BatchId` beside `AccountId`
//! and `Tool`; its input comes from the database, so none of it is in the runner's history.
import type { Db } from 'mongodb';
import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { findTool } from '../../domain/catalogue.js';
import { createBatchProgress } from '../../domain/batch-progress.js';
import { batchItemId } from '../../domain/batches.js';
import { createCallKeys } from '../../domain/call-keys.js';
import { createLedger } from '../../domain/ledger.js';
import type { EventSink } from '../../domain/events.js';
import { collections } from '../../lib/mongo.js';
import type { BatchDoc, BatchItemDoc } from '../../lib/mongo-documents.js';
import { underParent } from '../../lib/trace-context.js';
import { open, seal } from '../../lib/sealed.js';
import {
  CALL_WORKFLOW_TASK_TIMEOUT_MS,
  SEARCH_ATTRIBUTES,
  WORKFLOW_TYPES,
  batchItemRequestId,
  callTaskQueue,
  type BatchFill,
  type ToolCallInput,
} from '../../lib/temporal-shared.js';

/** Priority key of a batch item's call (1 first, 5 last; unset is 3): bulk work yields to single calls. */
const BATCH_ITEM_PRIORITY = 4;

/** A fill's heartbeat: well within the runner's heartbeat timeout (10 s). */
const HEARTBEAT_EVERY_MS = 2_000;

export interface BatchActivityDeps {
  db: Db;
  client: Client;
  /** SECRET_KEY: items' secret fields are sealed with it at rest. */
  secretKey: Buffer;
  /** BATCH_CONCURRENCY. */
  concurrency: number;
  /** How long a `wait` batch waits for credits before it gives up (default BATCH_CREDIT_WAIT_MS, 7 days). */
  creditWaitMs?: number;
  onEvent?: EventSink;
}

export function createBatchActivities(deps: BatchActivityDeps) {
  const { batches, batchItems } = collections(deps.db);
  const progress = createBatchProgress(deps.db, deps.onEvent);
  const callKeys = createCallKeys(deps.db);
  const ledger = createLedger(deps.db, deps.onEvent);

  /** The item's call input: its secret fields opened from rest and sealed again under the call's own key. */
  async function callInput(batch: BatchDoc, item: BatchItemDoc, requestId: string): Promise<ToolCallInput> {
    const tool = findTool(batch.tool);
    if (!tool) throw new Error(`batch ${batch._id} names a tool that is no longer listed: ${batch.tool}`);
    const call: ToolCallInput = {
      accountId: batch.accountId,
      tool: tool.name,
      pool: tool.pool,
      execution: tool.execution ?? 'local',
      oneStep: true,
      cost: batch.cost,
      timeoutMs: tool.timeoutMs,
      input: item.input ?? {},
      batch: { id: batch._id, index: item.index, attempt: item.attempt },
      // The file goes to {prefix}/{batchId}/{index}.{ext}, whichever attempt writes it.
      ...(batch.destination ? { destination: { id: batch.destination, folder: batch._id, name: String(item.index) } } : {}),
    };
    if (!item.sealed) return call;
    const secret = open(deps.secretKey, item.sealed, item._id);
    return { ...call, sealed: seal(await callKeys.issue(requestId), secret, requestId) };
  }

  /** Starts an item's call (a repeat finds it started); answers its request id once it is started. */
  async function start(batch: BatchDoc, item: BatchItemDoc): Promise<string> {
    const requestId = batchItemRequestId(batch.accountId, batch._id, item.index, item.attempt);
    const tool = findTool(batch.tool)!;
    try {
      const input = await callInput(batch, item, requestId);
      // In the trace of the request that made the batch (when traced), whichever runner starts it.
      await underParent(batch.traceparent, () => deps.client.workflow.start(WORKFLOW_TYPES.toolCall, {
        taskQueue: callTaskQueue(tool),
        workflowId: requestId,
        args: [input],
        workflowTaskTimeout: CALL_WORKFLOW_TASK_TIMEOUT_MS,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        // Behind synchronous calls on the pool's queue whenever tasks wait there (a call's own default is 3).
        priority: { priorityKey: BATCH_ITEM_PRIORITY },
        typedSearchAttributes: new TypedSearchAttributes([
          { key: SEARCH_ATTRIBUTES.accountId, value: batch.accountId },
          { key: SEARCH_ATTRIBUTES.tool, value: tool.name },
          { key: SEARCH_ATTRIBUTES.batchId, value: batch._id },
        ]),
      }));
    } catch (err) {
      // Started by an earlier run of this activity whose end was lost: it runs, or ran, once.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    return requestId;
  }

  /**
   * Starts the calls of a batch's items that are still pending (read in one page, started side by
   * side) and marks them running, the batch's counts moved once for all of them.
   */
  async function launch(batch: BatchDoc, indexes: number[]): Promise<void> {
    if (indexes.length === 0) return;
    const items = await batchItems.find({ _id: { $in: indexes.map((i) => batchItemId(batch._id, i)) }, status: 'pending' }).toArray();
    const started = await Promise.all(items.map(async (item) => ({ item, requestId: await start(batch, item) })));
    await progress.markRunning(batch._id, started);
  }

  /** Paused batches: resumed once the balance covers an item, given up on after their wait. */
  async function resumable(accountId: string, now: Date): Promise<number | undefined> {
    const paused = await batches.find({ accountId, status: 'paused' }, { projection: { cost: 1 } }).toArray();
    if (paused.length === 0) return undefined;
    const { balance } = await ledger.balanceOf(accountId);
    return progress.resumeOrGiveUp(accountId, paused.some((b) => balance >= b.cost), now, deps.creditWaitMs);
  }

  return {
    async fillBatchSlots(accountId: string): Promise<BatchFill> {
      // Alive while it waits on the database or Temporal: see the runner's heartbeat timeout.
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
      try {
        return await fill(accountId);
      } finally {
        clearInterval(beat);
      }
    },
  };

  async function fill(accountId: string): Promise<BatchFill> {
    const now = new Date();
    const wakeAt = await resumable(accountId, now);
    const active = await batches.find({ accountId, status: { $in: ['running', 'cancelled'] }, completedAt: null }).sort({ createdAt: 1 }).toArray();
    for (const batch of active) {
      if (batch.stopped) {
        await progress.settleStopped(batch, now);
        continue;
      }
      // Claimed, but their start or its mark was cut short (this activity died), or items back
      // from a pause for credits: started (again) before anything new.
      const again = await batchItems.find({ batchId: batch._id, status: 'pending', index: { $lt: batch.next } }, { projection: { index: 1 } }).toArray();
      await launch(batch, again.map((item) => item.index));
    }
    let running = await batchItems.countDocuments({ accountId, status: 'running' });
    let waiting = 0;
    for (const batch of active) {
      if (batch.stopped) continue;
      const claimed: number[] = [];
      let next = batch.next;
      let refused = false; // paused or stopped since it was read
      while (running + claimed.length < deps.concurrency && next < batch.total) {
        const index = await progress.claim(batch);
        if (index === null) {
          refused = true;
          break;
        }
        claimed.push(index);
        next = index + 1;
      }
      await launch(batch, claimed);
      running += claimed.length;
      if (!refused && next < batch.total) waiting += batch.total - next;
      // A batch whose items all ended before this fill saw them (or that had none left) completes here.
      else await progress.completeIfDone(batch._id, now);
    }
    return { running, waiting, ...(wakeAt !== undefined ? { wakeAt } : {}) };
  }
}

export type BatchActivities = ReturnType<typeof createBatchActivities>;
