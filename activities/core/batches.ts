//! The batch runner's one activity: fills an account's free batch slots (BATCH_CONCURRENCY, all
//! its batches together) with the next items, oldest batch first. Each item starts as the call it
//! would have been, the `toolCall` workflow on its tool's queue, with `BatchId` beside `AccountId`
//! and `Tool`; its input comes from the database, so none of it is in the runner's history.
import type { Db } from 'mongodb';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { findTool } from '../../domain/catalogue.js';
import { createBatchProgress } from '../../domain/batch-progress.js';
import { createCallKeys } from '../../domain/call-keys.js';
import { createLedger } from '../../domain/ledger.js';
import type { EventSink } from '../../domain/events.js';
import { collections } from '../../lib/mongo.js';
import type { BatchDoc, BatchItemDoc } from '../../lib/mongo-documents.js';
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

  /** Starts an item's call (a repeat finds it started) and marks the item running. */
  async function launch(batch: BatchDoc, index: number): Promise<void> {
    const item = await batchItems.findOne({ _id: `${batch._id}:${index}` });
    if (!item || item.status !== 'pending') return;
    const requestId = batchItemRequestId(batch.accountId, batch._id, index, item.attempt);
    const tool = findTool(batch.tool)!;
    try {
      await deps.client.workflow.start(WORKFLOW_TYPES.toolCall, {
        taskQueue: callTaskQueue(tool),
        workflowId: requestId,
        args: [await callInput(batch, item, requestId)],
        workflowTaskTimeout: CALL_WORKFLOW_TASK_TIMEOUT_MS,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: new TypedSearchAttributes([
          { key: SEARCH_ATTRIBUTES.accountId, value: batch.accountId },
          { key: SEARCH_ATTRIBUTES.tool, value: tool.name },
          { key: SEARCH_ATTRIBUTES.batchId, value: batch._id },
        ]),
      });
    } catch (err) {
      // Started by an earlier run of this activity whose end was lost: it runs, or ran, once.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    await progress.markRunning(item, requestId);
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
        for (const item of await batchItems.find({ batchId: batch._id, status: 'pending', index: { $lt: batch.next } }, { projection: { index: 1 } }).toArray()) {
          await launch(batch, item.index);
        }
      }
      let running = await batchItems.countDocuments({ accountId, status: 'running' });
      let waiting = 0;
      for (const batch of active) {
        if (batch.stopped) continue;
        while (running < deps.concurrency) {
          const index = await progress.claim(batch);
          if (index === null) break;
          await launch(batch, index);
          running++;
        }
        const after = await batches.findOne({ _id: batch._id }, { projection: { next: 1, total: 1, status: 1 } });
        if (after?.status === 'running') waiting += after.total - after.next;
        // A batch whose items all ended before this fill saw them (or that had none left) completes here.
        await progress.completeIfDone(batch._id, now);
      }
      return { running, waiting, ...(wakeAt !== undefined ? { wakeAt } : {}) };
    },
  };
}

export type BatchActivities = ReturnType<typeof createBatchActivities>;
