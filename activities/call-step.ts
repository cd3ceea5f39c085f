//! A call of a tool that runs inside its workflow task (`execution: 'local'`), in one step: reserve,
//! the tool with its retries, then commit or refund, as one local activity. The task makes one
//! local-activity round trip instead of three. A repeat (the step retried, or the task re-run after
//! its worker died) is decided by the ledger as the separate steps were: the hold is taken once per
//! call, and the call's ledger entry, once written, is the outcome every later settle applies.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ServiceError, isErrorCode } from '../lib/errors.js';
import { isDatabaseUnreachable } from '../lib/mongo.js';
import {
  DEPENDENCY_UNREACHABLE,
  TOOL_FAILED,
  TOOL_TIMED_OUT,
  ANSWERED_TOO_LATE,
  CALL_CANCELLED,
  batchItemEnd,
  callRefOf,
  reserveRefusal,
  type ToolCallError,
  type ToolCallInput,
  type ToolCallResult,
} from '../lib/temporal-shared.js';
import type { ToolHandler } from '../lib/tool-handler.js';
import type { CallKeys } from '../domain/call-keys.js';
import type { Ledger } from '../domain/ledger.js';
import type { DeliveryRequest } from '../domain/destinations/delivery.js';
import { toApplicationFailure, toolInput } from './tool-activities.js';
import { SPAN_ATTRIBUTES, inSpan, markFailed } from '../lib/trace-context.js';
import type { SingleCalls } from './single-calls.js';
import type { BatchItemRecord } from './batch-items.js';
import type { MonitorRun } from '../domain/monitors/judge.js';
import { abortable } from '../lib/abortable.js';

export interface CallStepInput {
  requestId: string;
  call: ToolCallInput;
  /** An earlier run of this call's workflow task may have settled it (ledger.reserve's `mayBeSettled`). */
  mayBeSettled: boolean;
}

/** What the step did, recorded in the call's history where an operator reads it. */
export interface CallStepResult {
  outcome: 'charged' | 'refunded' | 'insufficient_credits' | 'key_credit_limit';
  result: ToolCallResult;
  /** Milliseconds of each part: the reserve, the tool (all attempts), the write to a destination and the commit or refund. */
  ms: { reserve: number; tool?: number; deliver?: number; settle?: number };
  /** Runs of the tool: a failure that is not final is tried again within the deadline. */
  attempts?: number;
  /** A batch item's outcome was recorded on its item by the step (else the workflow records it). */
  recorded?: true;
}

/** The tool's retries: as many runs, and the pause before the second (doubling after). */
const TOOL_ATTEMPTS = 3;
const FIRST_RETRY_PAUSE_MS = 200;

export type ToolDone = (tool: string, outcome: string, seconds: number) => void;

export interface CallStepDeps {
  handlers: Record<string, ToolHandler>;
  ledger: Pick<Ledger, 'reserve' | 'commit' | 'refund'>;
  callKeys: CallKeys;
  /** Told of every run of a tool, with its outcome label (`ok` or an error code). */
  onToolDone?: ToolDone;
  /** The output as the call carries it: a big one stored once, a reference in its place (lib/output-blobs.ts). */
  keepOutput?: (output: unknown) => Promise<unknown>;
  /** Writes a call's file to its destination and returns the output that says where (domain/destinations/delivery.ts). */
  deliver?: (call: DeliveryRequest, output: unknown) => Promise<unknown>;
  /** Told of the steps of calls that are not batch items: batch items on this worker yield to them. */
  singleCalls?: SingleCalls;
  /**
   * Records a batch item's outcome on its item and hands its slot on (activities/batch-items.ts):
   * done by the step itself, so an item's call makes one local activity, as a single call does.
   */
  recordBatchItem?: (outcome: BatchItemRecord, retried: boolean) => Promise<void>;
  /** Whether a call's client cancelled it (domain/call-cancellations.ts); a step without it hears only its workflow's. */
  cancelledByClient?: (requestId: string) => Promise<boolean>;
  /**
   * Judges a monitor's run once its call is settled (activities/monitor-runs.ts): done by the step
   * itself, so a run is one local activity, as a single call is.
   */
  recordMonitorRun?: (run: MonitorRun, retried: boolean) => Promise<void>;
}

/**
 * A step of a call its client may cancel (a synchronous MCP call) looks for the cancellation from
 * this far in, then this often: a call is found by a cancellation only once it has run a second
 * (RECORD_AFTER_MS, api/mcp/server.ts), and half a second is soon enough to spare the credits.
 */
const CANCEL_LOOK_AFTER_MS = 1_000;
const CANCEL_LOOK_EVERY_MS = 500;

const cancellable = (call: ToolCallInput) => call.via === 'mcp' && !call.async && !call.batch;

/** A signal that aborts once `isCancelled` finds the call cancelled by its client, and how to stop looking. */
function clientCancellation(isCancelled: () => Promise<boolean>): { signal: AbortSignal; stop: () => void } {
  const cancelled = new AbortController();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const look = async () => {
    // Unreachable, the database is asked again next time; the workflow's own cancellation still comes.
    const found = await isCancelled().catch(() => false);
    if (stopped) return;
    if (found) cancelled.abort(new Error('the call was cancelled by its client'));
    else timer = setTimeout(look, CANCEL_LOOK_EVERY_MS);
  };
  timer = setTimeout(look, CANCEL_LOOK_AFTER_MS);
  return {
    signal: cancelled.signal,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

type ToolRun = { ok: true; output: unknown; attempts: number } | { ok: false; error: ToolCallError; attempts: number };

export function createCallStep(deps: CallStepDeps) {
  const since = (start: number) => Math.round((performance.now() - start) * 10) / 10;

  /** Runs the tool until it answers, fails for good, or its deadline passes. */
  async function runTool(call: ToolCallInput, requestId: string): Promise<ToolRun> {
    const ctx = Context.current();
    const handler = deps.handlers[call.tool];
    if (!handler) return { ok: false, error: TOOL_FAILED, attempts: 0 };
    const deadline = AbortSignal.timeout(call.timeoutMs);
    const { cancelledByClient } = deps;
    const byClient = cancelledByClient && cancellable(call) ? clientCancellation(() => cancelledByClient(requestId)) : undefined;
    const signal = AbortSignal.any([deadline, ctx.cancellationSignal, ...(byClient ? [byClient.signal] : [])]);
    try {
      return await attempts(call, requestId, handler, { deadline, signal, byClient: byClient?.signal });
    } finally {
      byClient?.stop();
    }
  }

  /** The tool's runs, each under `signal`: `deadline` ends them as timed out, `byClient` as cancelled. */
  async function attempts(
    call: ToolCallInput,
    requestId: string,
    handler: ToolHandler,
    signals: { deadline: AbortSignal; signal: AbortSignal; byClient?: AbortSignal },
  ): Promise<ToolRun> {
    const ctx = Context.current();
    const { deadline, signal, byClient } = signals;
    for (let attempt = 1; ; attempt++) {
      const next = await inSpan(
        `tool ${call.tool}`,
        { [SPAN_ATTRIBUTES.tool]: call.tool, 'utility_tools.attempt': attempt },
        async (span): Promise<ToolRun | 'again'> => {
          const started = performance.now();
          try {
            const input = await toolInput(deps.callKeys, { requestId, input: call.input, sealed: call.sealed });
            const made = await abortable(handler(input, { requestId, signal, heartbeat: () => {} }), signal);
            // Stored before the commit: a call is charged only once its output can be answered. A file
            // bound for a destination is written there instead (see delivered).
            const output = deps.keepOutput && !call.destination ? await deps.keepOutput(made) : made;
            deps.onToolDone?.(call.tool, 'ok', since(started) / 1000);
            return { ok: true, output, attempts: attempt };
          } catch (err) {
            // The step itself was cancelled (its worker is going away): the retry of the step decides.
            if (ctx.cancellationSignal.aborted) throw err;
            // Its client cancelled the call: the hold is refunded, and the workflow ends on its own cancellation.
            if (byClient?.aborted) {
              deps.onToolDone?.(call.tool, CALL_CANCELLED.code, since(started) / 1000);
              return { ok: false, error: CALL_CANCELLED, attempts: attempt };
            }
            const { error, final } = deadline.aborted ? { error: TOOL_TIMED_OUT, final: true } : classify(err);
            deps.onToolDone?.(call.tool, error.code, since(started) / 1000);
            markFailed(span, error.code);
            // Worded as the SDK words a failed tool activity, so one query finds both.
            ctx.log.warn('Activity failed', {
              tool: call.tool,
              attempt,
              error: err instanceof ServiceError ? toApplicationFailure(err) : err,
            });
            if (final || attempt === TOOL_ATTEMPTS) return { ok: false, error, attempts: attempt };
            return 'again';
          }
        },
      );
      if (next !== 'again') return next;
      await pause(FIRST_RETRY_PAUSE_MS * 2 ** (attempt - 1), signal);
      if (byClient?.aborted) return { ok: false, error: CALL_CANCELLED, attempts: attempt };
      if (deadline.aborted) return { ok: false, error: TOOL_TIMED_OUT, attempts: attempt };
    }
  }

  /** The run with its file written to the call's destination, or failed with why it could not be. */
  async function delivered(
    call: ToolCallInput & { destination: DeliveryRequest['destination'] },
    run: ToolRun & { ok: true },
  ): Promise<ToolRun> {
    const ctx = Context.current();
    try {
      if (!deps.deliver) throw new Error('this worker has no destination delivery');
      return {
        ...run,
        output: await deps.deliver({ accountId: call.accountId, tool: call.tool, destination: call.destination }, run.output),
      };
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw err;
      const { error } = classify(err);
      // The code and S3's reason only: the cause may quote the request it refused.
      ctx.log.warn('Destination write failed', {
        tool: call.tool,
        destination: call.destination.id,
        code: error.code,
        reason: error.extras.reason,
        error: err instanceof ServiceError ? undefined : err,
      });
      return { ok: false, error, attempts: run.attempts };
    }
  }

  /** Whether this run may follow one that settled the call: a retry of this step, as a re-run task may. */
  const mayRepeat = (mayBeSettled: boolean) => mayBeSettled || Context.current().info.attempt > 1;

  async function step({ requestId, call, mayBeSettled }: CallStepInput): Promise<CallStepResult> {
    const ref = callRefOf(call, requestId);
    const repeat = mayRepeat(mayBeSettled);
    let start = performance.now();
    const reserved = await inSpan('ledger reserve', {}, () => deps.ledger.reserve({ ...ref, mayBeSettled: repeat }));
    const ms: CallStepResult['ms'] = { reserve: since(start) };
    if (!reserved.ok) {
      const error = reserveRefusal(call.cost, reserved);
      return { outcome: error.code === 'key_credit_limit' ? 'key_credit_limit' : 'insufficient_credits', result: { ok: false, error }, ms };
    }

    start = performance.now();
    let run = await runTool(call, requestId);
    ms.tool = since(start);
    if (run.ok && call.destination) {
      start = performance.now();
      run = await inSpan('destination write', {}, () =>
        delivered({ ...call, destination: call.destination! }, run as ToolRun & { ok: true }),
      );
      ms.deliver = since(start);
    }

    start = performance.now();
    // Past answerBy the commit refunds (see ledger.commit): nobody waits for that 200 any more.
    const settled = run.ok
      ? await inSpan('ledger commit', {}, () => deps.ledger.commit({ ...ref, answerBy: call.answerBy }))
      : await inSpan('ledger refund', {}, () => deps.ledger.refund(ref));
    ms.settle = since(start);
    const { attempts } = run;
    if (settled.outcome === 'refunded') {
      return { outcome: 'refunded', result: { ok: false, error: run.ok ? ANSWERED_TOO_LATE : run.error }, ms, attempts };
    }
    // Charged, though this run's tool failed: an earlier run was charged and answered. Run it
    // again rather than answer a failure for a charged call (a retry of the step after its
    // commit got through but its answer did not).
    if (!run.ok)
      throw ApplicationFailure.retryable('the call was charged by an earlier run; running its tool again', 'charged_without_output');
    return { outcome: 'charged', result: { ok: true, output: run.output, charged: call.cost, balance: settled.balance }, ms, attempts };
  }

  /**
   * A batch item's step, then its outcome on the item. A failed record fails the step, whose retry
   * finds the call settled (the ledger applies what was decided) and records it then.
   */
  async function batchItemStep(
    input: CallStepInput,
    batch: NonNullable<ToolCallInput['batch']>,
    record: NonNullable<CallStepDeps['recordBatchItem']>,
  ): Promise<CallStepResult> {
    const done = await step(input);
    await inSpan('batch item record', {}, () =>
      record(batchItemEnd(batch, input.call.accountId, input.requestId, done.result), mayRepeat(input.mayBeSettled)),
    );
    return { ...done, recorded: true };
  }

  /**
   * A monitor's run: its step, then its judgement. A failed judgement fails the step, whose retry
   * finds the call settled (the ledger applies what was decided) and judges it then, once.
   */
  async function monitorRunStep(input: CallStepInput, record: NonNullable<CallStepDeps['recordMonitorRun']>): Promise<CallStepResult> {
    const at = new Date();
    const done = await step(input);
    const run = { requestId: input.requestId, call: input.call, result: done.result, at, durationMs: Math.round(done.ms.tool ?? 0) };
    await inSpan('monitor run judge', {}, () => record(run, mayRepeat(input.mayBeSettled)));
    return done;
  }

  return {
    callStep(input: CallStepInput): Promise<CallStepResult> {
      const { batch, monitor } = input.call;
      if (batch) return deps.recordBatchItem ? batchItemStep(input, batch, deps.recordBatchItem) : step(input);
      // A monitor's run is nobody's wait: batch items need not yield to it.
      if (monitor && deps.recordMonitorRun) return monitorRunStep(input, deps.recordMonitorRun);
      return deps.singleCalls ? deps.singleCalls.during(() => step(input)) : step(input);
    },
  };
}

export type CallStepActivities = ReturnType<typeof createCallStep>;

/** The contract's error for what a tool threw, and whether trying again could change it. */
function classify(err: unknown): { error: ToolCallError; final: boolean } {
  if (err instanceof ServiceError)
    return { error: { code: err.code, message: err.message, extras: err.extras }, final: err.code !== 'unavailable' };
  if (err instanceof ApplicationFailure && isErrorCode(err.type)) {
    const error = { code: err.type, message: err.message, extras: (err.details?.[0] ?? {}) as Record<string, unknown> };
    return { error, final: err.nonRetryable || err.type !== 'unavailable' };
  }
  if (isDatabaseUnreachable(err)) {
    return { error: DEPENDENCY_UNREACHABLE, final: false };
  }
  return { error: TOOL_FAILED, final: false };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
