//! A call's workflow as the API drives it: its input (secret fields sealed under a key of the
//! call's own), its start on the tool's pool, and waiting for its result, each waiting out
//! Temporal's or the database's outages until the call's deadline.
import type { Db } from 'mongodb';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  isGrpcDeadlineError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { CancelledFailure, TypedSearchAttributes, WorkflowNotFoundError } from '@temporalio/common';
import { untilReachable } from '../lib/mongo.js';
import { seal, splitSecrets } from '../lib/sealed.js';
import { CALL_CANCELLED, type ToolCallInput, type ToolCallResult } from '../contracts/call.js';
import { CALL_WORKFLOW_TASK_TIMEOUT_MS, SEARCH_ATTRIBUTES, WORKFLOW_TYPES, callTaskQueue } from '../contracts/temporal-names.js';
import { createCallKeys, createCallCancellations } from '../domain/calls/index.js';
import { renderCacheId } from '../domain/render-cache.js';
import { ServiceError } from '../contracts/errors.js';
import { untilDeadline } from '../lib/until-deadline.js';
import type { CallRequest } from './call-request.js';
import { sampledTraceId } from '../lib/trace-context.js';

/** A single call's file is `{prefix}/{requestId}/0.{ext}`: the name a batch's first item would have. */
const SINGLE_CALL_OBJECT = '0';

export function createCallWorkflows(deps: { db: Db; client: Client }) {
  const callKeys = createCallKeys(deps.db);
  const cancellations = createCallCancellations(deps.db);

  async function workflowInput(req: CallRequest, workflowId: string, deadline: number): Promise<ToolCallInput> {
    const { clear, secret, hasSecrets } = splitSecrets(req.input, req.tool.secretFields ?? []);
    const base: ToolCallInput = {
      accountId: req.accountId,
      tool: req.tool.name,
      pool: req.tool.pool,
      execution: req.tool.execution ?? 'local',
      oneStep: true,
      cost: req.tool.cost,
      timeoutMs: req.tool.timeoutMs,
      input: clear,
      // Only the id travels: the worker loads the destination and opens its credentials.
      ...(req.destination ? { destination: { id: req.destination, folder: workflowId, name: SINGLE_CALL_OBJECT } } : {}),
      ...(req.keyId ? { keyId: req.keyId } : {}),
      ...(req.keyCreditLimit !== undefined ? { keyCreditLimit: req.keyCreditLimit } : {}),
      ...(req.via ? { via: req.via } : {}),
      ...(req.cacheRender ? { cacheAs: renderCacheId(req.accountId, req.tool.name, req.input) } : {}),
    };
    if (!hasSecrets) return base;
    const key = await untilReachable(deadline, () => callKeys.issue(workflowId));
    return { ...base, sealed: seal(key, secret, workflowId) };
  }

  /**
   * The workflow's result, or undefined when it is still running at the deadline. Temporal being
   * unreachable (a restart) is waited out until the deadline, then answered 503.
   * The client's own retries give up after about 10 s.
   */
  async function awaitResult(handle: WorkflowHandle, deadline: number): Promise<ToolCallResult | undefined> {
    const result = await untilDeadline<ToolCallResult | null>(
      deadline,
      () => deps.client.withDeadline(deadline, () => handle.result() as Promise<ToolCallResult>),
      (err, final) => {
        if (err instanceof WorkflowFailedError) {
          if (err.cause instanceof CancelledFailure) return { ok: false, error: CALL_CANCELLED };
          throw err; // an operator terminated it: internal error
        }
        if (final && isGrpcDeadlineError(err)) return null; // still running
        return undefined;
      },
      unavailable,
    );
    return result ?? undefined;
  }

  /**
   * Starts the workflow, retrying while Temporal cannot be reached: with the call's fixed
   * workflow id and USE_EXISTING a repeated start is harmless, and a start whose answer was lost
   * may have started the workflow, which then runs whatever we answer.
   */
  async function start(
    req: CallRequest,
    workflowId: string,
    when: { answerBy: number } | { async: true },
    deadline: number,
  ): Promise<WorkflowHandle> {
    const args = [{ ...(await workflowInput(req, workflowId, deadline)), ...when }];
    // The Temporal UI shows the memo: from a call's workflow to its trace (a sampled one: an unsampled trace is in no backend).
    const traceId = sampledTraceId();
    return untilDeadline(
      deadline,
      () =>
        deps.client.workflow.start(WORKFLOW_TYPES.toolCall, {
          // The tool's pool runs the whole call: its workers host the workflow and the ledger steps.
          taskQueue: callTaskQueue(req.tool),
          workflowId,
          args,
          workflowTaskTimeout: CALL_WORKFLOW_TASK_TIMEOUT_MS,
          // A repeat of a running idempotent call attaches to it; a finished one is replayed below.
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          ...(traceId && { memo: { traceId } }),
          typedSearchAttributes: new TypedSearchAttributes([
            { key: SEARCH_ATTRIBUTES.accountId, value: req.accountId },
            { key: SEARCH_ATTRIBUTES.tool, value: req.tool.name },
          ]),
        }),
      (err) => (err instanceof WorkflowExecutionAlreadyStartedError ? deps.client.workflow.getHandle(workflowId) : undefined),
      unavailable,
    );
  }

  /**
   * Asks the call's workflow to cancel (it refunds the hold and ends cancelled, unless the call was
   * charged already), then marks it for its running step, which would hear of it only at its next
   * workflow task. False when there is no such running workflow: not started yet, or ended.
   */
  async function cancel(workflowId: string): Promise<boolean> {
    try {
      await deps.client.workflow.getHandle(workflowId).cancel();
      await cancellations.mark(workflowId);
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }

  return { start, awaitResult, cancel, destroyKey: (workflowId: string) => callKeys.destroy(workflowId) };
}

export function unavailable(cause: unknown): ServiceError {
  return new ServiceError('unavailable', 'The service cannot run calls right now; retry shortly.', {}, { cause });
}
