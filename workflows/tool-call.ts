//! One tool call: reserve its cost, run the tool, then commit or refund, all three in one local
//! activity (activities/call-step.ts), on the task queue the call started on: its pool's, or the
//! pool's queue of long calls for a `queued` tool. Calls started before they were one step take
//! them as steps of their own (a queued tool's as an activity on the pool's queue), and replay so.
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  TimeoutFailure,
  condition,
  isCancellation,
  proxyActivities,
  patched,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { CoreActivities } from '../activities/core/index.js';
import type { CallStepActivities } from '../activities/call-step.js';
import {
  type CallRef,
  ANSWERED_TOO_LATE,
  CALL_CANCELLED,
  TOOL_FAILED,
  TOOL_TIMED_OUT,
  callRef,
  type ToolActivityInput,
  type ToolCallError,
  type ToolCallInput,
  type ToolCallResult,
} from '../contracts/call.js';
import { ERRORS, isErrorCode } from '../contracts/errors.js';
import { TASK_QUEUES } from '../contracts/temporal-names.js';
import { batchItemEnd } from '../contracts/batch.js';
import { cancel, liveCall, takeUpLate, takenUpLate, type ToolOutcome } from '../contracts/call-life.js';
import { finishAsyncCall } from './async-call.js';
import { finishBatchItem } from './batch-item.js';

/** Ledger steps are short single-document updates; retry them until the database answers. */
const ledger = proxyLocalActivities<CoreActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '100ms', maximumInterval: '5s' },
});

/**
 * The step of such a call. Its retry is for what is not the tool's doing (the database out of
 * reach, the worker going away): the tool's own retries and deadline are inside the step, and the
 * ledger makes a repeat of the step settle the call once.
 */
function step(call: ToolCallInput) {
  return proxyLocalActivities<CallStepActivities>({
    startToCloseTimeout: call.timeoutMs + LEDGER_ALLOWANCE_MS,
    retry: { initialInterval: '100ms', maximumInterval: '5s' },
  });
}

/** What a step may spend on its reserve and its commit or refund, beyond the tool's deadline. */
const LEDGER_ALLOWANCE_MS = 20_000;

/** Patch id: from it on the API destroys a synchronous call's key, not the workflow. */
const API_DESTROYS_CALL_KEY = 'api-destroys-call-key';

/**
 * How long a run whose step stopped for its client's cancellation waits for that cancellation,
 * which was asked before the step could see it: past it (never, unless Temporal lost it) the call
 * ends with the `cancelled` answer instead.
 */
const CANCELLATION_ARRIVES_MS = 60_000;

/** Patch id: from it on a call cancelled by its client refunds its hold before it ends cancelled. */
const REFUND_ON_CANCEL = 'refund-on-cancel';

/** Events before a run's first workflow task: WorkflowExecutionStarted, WorkflowTaskScheduled, WorkflowTaskStarted. */
const FIRST_TASK_HISTORY_LENGTH = 3;

/**
 * Codes a tool decides on purpose: retrying cannot change the answer. `unavailable` (a
 * dependency out of reach) is tried again, and is the answer only once the attempts are spent.
 */
const FINAL_CODES = Object.keys(ERRORS).filter((code) => code !== 'unavailable');

export async function toolCall(call: ToolCallInput): Promise<ToolCallResult> {
  const ref = callRef(call, workflowInfo().workflowId);

  // A first task that is not the run's first (history: started, scheduled, started) is a re-run
  // after a worker died mid-task; its steps may have reserved or settled the call before they
  // could report.
  const rerun = workflowInfo().historyLength > FIRST_TASK_HISTORY_LENGTH;

  // Taken up only after the API gave up on it (the pool was down past the deadline): nobody waits
  // for its answer, so it neither reserves nor runs the tool. A re-run first ends what its dead
  // attempt began: a hold is refunded; a charge stands, and then the call goes on to answer what
  // it was charged for (a client's retry with the Idempotency-Key gets that 200). The workflow
  // clock is the time of this task, so a replay decides the same.
  if (takenUpLate(call, Date.now()) && (await takeUpLate(ledger, ref, rerun)) !== 'charged') return failed(ANSWERED_TOO_LATE);

  const stepped = call.oneStep ? await cancellableStep(call, ref, rerun) : undefined;
  const result = stepped ? stepped.result : await inSteps(call, ref, rerun);
  // A synchronous call's key is destroyed by the API once the answer has reached it: destroyed in
  // this task, a worker dying before the task completes leaves a re-run that cannot unseal its
  // input, for a call that may already be charged. (Calls started before that still do it here.)
  // Nobody answers a batch item or an asynchronous call: the workflow ends the key itself.
  if (call.sealed && (call.async || call.batch || !patched(API_DESTROYS_CALL_KEY))) await ledger.destroyCallKey(ref.requestId);
  if (call.async) await finishAsyncCall(ref, result, call.cacheAs);
  // A step records its batch item itself; a step recorded before steps did leaves it to this.
  if (call.batch && !stepped?.recorded) await finishBatchItem(batchItemEnd(call.batch, call.accountId, ref.requestId, result));
  return result;
}

/**
 * The call's one step. Cancelled (its MCP client cancelled the request), the worker aborts the
 * tool's signal and the step gives up without settling; the hold is then refunded here, out of
 * the cancelled scope, and the workflow ends cancelled. A step that finishes regardless (the cancel
 * came after its tool did) answers as usual: a call that was charged stays charged. (Calls that
 * were cancelled before this existed ended without the refund, and replay so.)
 */
async function cancellableStep(call: ToolCallInput, ref: CallRef, rerun: boolean) {
  try {
    const stepped = await step(call).callStep({ requestId: ref.requestId, call, mayBeSettled: rerun });
    // The step found its client's cancellation before this run heard of it (a task held open by a
    // step hears only at its heartbeat): it stopped the tool and refunded the hold. The run's own
    // cancellation was asked first (domain/calls/cancellations.ts) and comes with the next task.
    if (!stepped.result.ok && stepped.result.error.code === CALL_CANCELLED.code) await condition(() => false, CANCELLATION_ARRIVES_MS);
    return stepped;
  } catch (err) {
    if (isCancellation(err) && patched(REFUND_ON_CANCEL)) await cancel(ledger, ref, shielded);
    throw err;
  }
}

/**
 * A call in separate steps (started before calls were one step): the call's life (contracts/call-life.ts)
 * with the ledger steps as local activities and the tool as an activity. Cancelled by its client
 * while the tool or the commit runs, the hold is refunded and the workflow ends cancelled (calls
 * cancelled before that refund existed replay without it).
 */
async function inSteps(call: ToolCallInput, ref: CallRef, rerun: boolean): Promise<ToolCallResult> {
  const end = await liveCall(
    call,
    ref.requestId,
    {
      ledger,
      tool: () => toolOutcome(call, ref.requestId),
      isCancellation: (err) => isCancellation(err) && patched(REFUND_ON_CANCEL),
      shielded,
    },
    { mayBeSettled: rerun },
  );
  return end.result;
}

const shielded = <T>(work: () => Promise<T>) => CancellationScope.nonCancellable(work);

/** The tool's activity as the call's life reads it: its output, or its failure as the contract's error. */
async function toolOutcome(call: ToolCallInput, requestId: string): Promise<ToolOutcome> {
  try {
    return { ok: true, output: await runTool(call, requestId) };
  } catch (err) {
    if (isCancellation(err) && patched(REFUND_ON_CANCEL)) throw err; // the call's life refunds, and the workflow ends cancelled
    const failure = toolFailure(err);
    if (!failure) throw err; // a bug in this workflow: fail the task, fix, replay
    return { ok: false, error: describeFailure(failure) };
  }
}

/** The tool's own retry policy: a final error code ends it, anything else is tried again. */
const TOOL_RETRY = { initialInterval: '200ms', backoffCoefficient: 2, maximumAttempts: 3, nonRetryableErrorTypes: FINAL_CODES };

type ToolActivities = Record<string, (req: ToolActivityInput) => Promise<unknown>>;

function runTool(call: ToolCallInput, requestId: string): Promise<unknown> {
  const request = { requestId, input: call.input, sealed: call.sealed };
  if (call.execution === 'local') {
    // Within this workflow task; the task's timeout, not a heartbeat, notices a dead worker.
    const local = proxyLocalActivities<ToolActivities>({ scheduleToCloseTimeout: call.timeoutMs, retry: TOOL_RETRY });
    return local[call.tool]!(request);
  }
  const queued = proxyActivities<ToolActivities>({
    // The pool's queue, named even though it is this workflow's own: calls started before calls
    // ran on their pool had the workflow on `core`, and replay them with this same command.
    taskQueue: TASK_QUEUES[call.pool],
    // The whole deadline covers every attempt; heartbeats notice a dead worker within seconds.
    scheduleToCloseTimeout: call.timeoutMs,
    startToCloseTimeout: call.timeoutMs,
    heartbeatTimeout: '5s',
    retry: TOOL_RETRY,
  });
  return queued[call.tool]!(request);
}

function failed(error: ToolCallError): ToolCallResult {
  return { ok: false, error };
}

/**
 * What made the tool step fail: the cause of an activity's failure, or a local activity's own
 * failure, which reaches the workflow unwrapped (only its timeouts and cancellations come wrapped
 * in an ActivityFailure). Undefined for anything else, which is not the tool's doing.
 */
function toolFailure(err: unknown): unknown {
  if (err instanceof ActivityFailure) return err.cause;
  if (err instanceof ApplicationFailure) return err;
  return undefined;
}

/** Maps the tool's failure to the contract's error; unexpected failures say nothing internal. */
export function describeFailure(cause: unknown): ToolCallError {
  if (cause instanceof TimeoutFailure) return TOOL_TIMED_OUT;
  if (cause instanceof ApplicationFailure && isErrorCode(cause.type)) {
    const extras = (cause.details?.[0] ?? {}) as Record<string, unknown>;
    return { code: cause.type, message: cause.message, extras };
  }
  return TOOL_FAILED;
}
