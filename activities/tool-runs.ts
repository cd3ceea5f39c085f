//! A tool's runs inside a call's step (activities/call-step.ts): its attempts under its deadline, its
//! client's cancellation looked for, its output kept or its file written to the call's destination.
//! The step's ledger steps around it are the call's life (contracts/call-life.ts).
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ServiceError, isErrorCode } from '../contracts/errors.js';
import { isDatabaseUnreachable } from '../lib/mongo.js';
import {
  DEPENDENCY_UNREACHABLE,
  TOOL_FAILED,
  TOOL_TIMED_OUT,
  CALL_CANCELLED,
  type ToolCallError,
  type ToolCallInput,
} from '../contracts/call.js';
import type { ToolHandler } from '../domain/tools/index.js';
import type { CallKeys } from '../domain/calls/index.js';
import type { DeliveryRequest } from '../domain/destinations/index.js';
import { toApplicationFailure, toolInput } from './tool-activities.js';
import { SPAN_ATTRIBUTES, inSpan, markFailed } from '../lib/trace-context.js';
import { abortable } from '../lib/abortable.js';

/** The tool's retries: as many runs, and the pause before the second (doubling after). */
const TOOL_ATTEMPTS = 3;
const FIRST_RETRY_PAUSE_MS = 200;

export type ToolDone = (tool: string, outcome: string, seconds: number) => void;

export interface ToolRunDeps {
  handlers: Record<string, ToolHandler>;
  callKeys: CallKeys;
  /** Told of every run of a tool, with its outcome label (`ok` or an error code). */
  onToolDone?: ToolDone;
  /** The output as the call carries it: a big one stored once, a reference in its place (lib/output-blobs.ts). */
  keepOutput?: (output: unknown) => Promise<unknown>;
  /** Writes a call's file to its destination and returns the output that says where (domain/destinations/delivery.ts). */
  deliver?: (call: DeliveryRequest, output: unknown) => Promise<unknown>;
  /** Whether a call's client cancelled it (domain/calls/cancellations.ts); a step without it hears only its workflow's. */
  cancelledByClient?: (requestId: string) => Promise<boolean>;
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

export type ToolRun = { ok: true; output: unknown; attempts: number } | { ok: false; error: ToolCallError; attempts: number };

export function createToolRuns(deps: ToolRunDeps) {
  const since = (start: number) => round(performance.now() - start);

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

  /** The tool's runs, then its file written to the call's destination when it has one; `ms` gets the time of each. */
  return async function ranWithFile(call: ToolCallInput, requestId: string, ms: { tool?: number; deliver?: number }): Promise<ToolRun> {
    let start = performance.now();
    const run = await runTool(call, requestId);
    ms.tool = since(start);
    if (!run.ok || !call.destination) return run;
    start = performance.now();
    const written = await inSpan('destination write', {}, () => delivered({ ...call, destination: call.destination! }, run));
    ms.deliver = since(start);
    return written;
  };
}

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

/** Milliseconds to a tenth. */
const round = (ms: number) => Math.round(ms * 10) / 10;

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
