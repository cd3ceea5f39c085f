//! Starting a batch item's call: the `toolCall` workflow its tool's call would have been, on its
//! tool's queue, with `BatchId` beside `AccountId` and `Tool`, its input read from the item (secret
//! fields opened from rest and sealed again under the call's own key). Used by the runner's fill
//! (activities/core/batches.ts) and by an ending item handing its slot on (activities/batch-items.ts).
import type { Db } from 'mongodb';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { findTool } from '../domain/tools/index.js';
import { createCallKeys, type BatchDoc, type BatchItemDoc } from '../domain/calls/index.js';
import { open, seal } from '../lib/sealed.js';
import { underParent } from '../lib/trace-context.js';
import { CALL_WORKFLOW_TASK_TIMEOUT_MS, SEARCH_ATTRIBUTES, WORKFLOW_TYPES, callTaskQueue } from '../contracts/temporal-names.js';
import { batchItemRequestId } from '../contracts/batch.js';
import type { ToolCallInput } from '../contracts/call.js';

/**
 * Priority key of a batch item's call (1 first, 5 last; unset is 3): bulk work yields to single
 * calls. No fairness key: the SDK and the server here support one (`priority.fairnessKey`, with
 * the server's `matching.enableFairness`), but it only orders tasks within one priority level, and
 * single calls are already on a level above every item; between accounts' items, BATCH_CONCURRENCY
 * already bounds what each account has queued.
 */
const BATCH_ITEM_PRIORITY = 4;

export interface BatchStarterDeps {
  db: Db;
  client: Client;
  /** SECRET_KEY: items' secret fields are sealed with it at rest. */
  secretKey: Buffer;
}

export function createBatchStarter(deps: BatchStarterDeps) {
  const callKeys = createCallKeys(deps.db);

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
      batch: { id: batch._id, index: item.index, attempt: item.attempt, total: batch.total },
      // The file goes to {prefix}/{batchId}/{index}.{ext}, whichever attempt writes it.
      ...(batch.destination ? { destination: { id: batch.destination, folder: batch._id, name: String(item.index) } } : {}),
    };
    if (!item.sealed) return call;
    const secret = open(deps.secretKey, item.sealed, item._id);
    return { ...call, sealed: seal(await callKeys.issue(requestId), secret, requestId) };
  }

  /**
   * Starts an item's call (a repeat finds it started), its first task `delayMs` from now;
   * answers its request id once it is started. `eager`: the caller is a worker of the item's
   * queue, which may take the call's first task straight from the start's answer.
   */
  async function start(
    batch: BatchDoc,
    item: BatchItemDoc,
    { delayMs = 0, eager = false }: { delayMs?: number; eager?: boolean } = {},
  ): Promise<string> {
    const requestId = batchItemRequestId(batch.accountId, batch._id, item.index, item.attempt);
    const tool = findTool(batch.tool)!;
    try {
      const input = await callInput(batch, item, requestId);
      // In the trace of the request that made the batch (when traced), whoever starts the item.
      await underParent(batch.traceparent, () =>
        deps.client.workflow.start(WORKFLOW_TYPES.toolCall, {
          taskQueue: callTaskQueue(tool),
          workflowId: requestId,
          args: [input],
          workflowTaskTimeout: CALL_WORKFLOW_TASK_TIMEOUT_MS,
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          // Eager: Temporal hands the first task to this worker in the start's answer, not through
          // its queue (a round trip and the matching service's work saved per item), when the
          // worker has a slot free; otherwise the task is queued as usual. A delayed start is queued.
          ...(delayMs > 0 ? { startDelay: delayMs } : eager ? { requestEagerStart: true } : {}),
          // Behind synchronous calls on the pool's queue whenever tasks wait there (a call's own default is 3).
          priority: { priorityKey: BATCH_ITEM_PRIORITY },
          typedSearchAttributes: new TypedSearchAttributes([
            { key: SEARCH_ATTRIBUTES.accountId, value: batch.accountId },
            { key: SEARCH_ATTRIBUTES.tool, value: tool.name },
            { key: SEARCH_ATTRIBUTES.batchId, value: batch._id },
          ]),
        }),
      );
    } catch (err) {
      // Started by an earlier run whose end was lost: it runs, or ran, once.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    return requestId;
  }

  return { start };
}

export type BatchStarter = ReturnType<typeof createBatchStarter>;
