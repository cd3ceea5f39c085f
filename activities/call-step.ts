//! A call in one step: its life (contracts/call-life.ts: reserve, the tool with its retries, then
//! commit or refund) as one local activity, with this worker's ledger and the tool's runs
//! (tool-runs.ts) as its ports. The task makes one local-activity round trip instead of three. A
//! repeat (the step retried, or the task re-run after its worker died) is decided by the ledger: the
//! hold is taken once per call, and the call's ledger entry, once written, is the outcome every
//! later settle applies.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ToolCallError, ToolCallInput, ToolCallResult } from '../contracts/call.js';
import { batchItemEnd } from '../contracts/batch.js';
import type { Ledger } from '../domain/ledger/index.js';
import { inSpan } from '../lib/trace-context.js';
import type { SingleCalls } from './single-calls.js';
import type { BatchItemRecord } from './batch-items.js';
import type { MonitorRun, RunStart } from '../domain/monitors/index.js';
import { liveCall } from '../contracts/call-life.js';
import { createToolRuns, type ToolRunDeps } from './tool-runs.js';

export interface CallStepInput {
  requestId: string;
  call: ToolCallInput;
  /** An earlier run of this call's workflow task may have settled it (ledger.reserve's `mayBeSettled`). */
  mayBeSettled: boolean;
}

/** What the step did, recorded in the call's history where an operator reads it. */
export interface CallStepResult {
  /** `skipped`: a monitor's scheduled run due while its previous one was under way (nothing reserved or run). */
  outcome: 'charged' | 'refunded' | 'insufficient_credits' | 'key_credit_limit' | 'skipped';
  result: ToolCallResult;
  /** Milliseconds of each part: the reserve, the tool (all attempts), the write to a destination and the commit or refund. */
  ms: { reserve: number; tool?: number; deliver?: number; settle?: number };
  /** Runs of the tool: a failure that is not final is tried again within the deadline. */
  attempts?: number;
  /** A batch item's outcome was recorded on its item by the step (else the workflow records it). */
  recorded?: true;
}

export type { ToolDone } from './tool-runs.js';

export interface CallStepDeps extends ToolRunDeps {
  ledger: Pick<Ledger, 'reserve' | 'commit' | 'refund'>;
  /** Told of the steps of calls that are not batch items: batch items on this worker yield to them. */
  singleCalls?: SingleCalls;
  /**
   * Records a batch item's outcome on its item and hands its slot on (activities/batch-items.ts):
   * done by the step itself, so an item's call makes one local activity, as a single call does.
   */
  recordBatchItem?: (outcome: BatchItemRecord, retried: boolean) => Promise<void>;
  /**
   * A monitor's run: whether it goes ahead, and its judgement once its call is settled
   * (activities/monitor-runs.ts): done by the step itself, so a run is one local activity, as a
   * single call is.
   */
  monitorRuns?: MonitorRunPorts;
}

export interface MonitorRunPorts {
  begin(requestId: string, call: ToolCallInput, at: Date, retried: boolean): Promise<RunStart>;
  record(run: MonitorRun, retried: boolean): Promise<void>;
}

export function createCallStep(deps: CallStepDeps) {
  const ranWithFile = createToolRuns(deps);

  /** Whether this run may follow one that settled the call: a retry of this step, as a re-run task may. */
  const mayRepeat = (mayBeSettled: boolean) => mayBeSettled || Context.current().info.attempt > 1;

  /** The call's life (contracts/call-life.ts) with this worker's ledger, the tool's runs (and its file's write) and the clock. */
  async function step({ requestId, call, mayBeSettled }: CallStepInput): Promise<CallStepResult> {
    const ms: { tool?: number; deliver?: number } = {};
    let attempts = 0;
    const end = await liveCall(
      call,
      requestId,
      {
        ledger: {
          reserve: (ref) => inSpan('ledger reserve', {}, () => deps.ledger.reserve(ref)),
          // Past answerBy the commit refunds (see ledger.commit): nobody waits for that 200 any more.
          commit: (ref) => inSpan('ledger commit', {}, () => deps.ledger.commit(ref)),
          refund: (ref) => inSpan('ledger refund', {}, () => deps.ledger.refund(ref)),
        },
        tool: async () => {
          const run = await ranWithFile(call, requestId, ms);
          attempts = run.attempts;
          return run.ok ? { ok: true, output: run.output } : { ok: false, error: run.error };
        },
        clock: () => performance.now(),
      },
      { mayBeSettled: mayRepeat(mayBeSettled) },
    );
    const reserve = round(end.ms.reserve ?? 0);
    if (end.state === 'refused') {
      const { code } = (end.result as { error: ToolCallError }).error;
      return { outcome: code === 'key_credit_limit' ? 'key_credit_limit' : 'insufficient_credits', result: end.result, ms: { reserve } };
    }
    // Charged, though this run's tool failed: an earlier run was charged and answered. Run it
    // again rather than answer a failure for a charged call (a retry of the step after its
    // commit got through but its answer did not).
    if (end.state === 'charged_without_output')
      throw ApplicationFailure.retryable('the call was charged by an earlier run; running its tool again', 'charged_without_output');
    return { outcome: end.state, result: end.result, ms: { reserve, ...ms, settle: round(end.ms.settle ?? 0) }, attempts };
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
   * A monitor's run: skipped while its previous one is under way, else its step, then its
   * judgement. A failed judgement fails the step, whose retry finds the call settled (the ledger
   * applies what was decided) and judges it then, once.
   */
  async function monitorRunStep(input: CallStepInput, runs: MonitorRunPorts): Promise<CallStepResult> {
    const at = new Date();
    const retried = mayRepeat(input.mayBeSettled);
    const start = await inSpan('monitor run begin', {}, () => runs.begin(input.requestId, input.call, at, retried));
    if (!start.go) return { outcome: 'skipped', result: start.result, ms: { reserve: 0 } };
    const done = await step(input);
    const run = {
      requestId: input.requestId,
      call: input.call,
      result: done.result,
      at,
      durationMs: Math.round(done.ms.tool ?? 0),
      monitor: start.monitor,
    };
    await inSpan('monitor run judge', {}, () => runs.record(run, retried));
    return done;
  }

  return {
    callStep(input: CallStepInput): Promise<CallStepResult> {
      const { batch, monitor } = input.call;
      if (batch) return deps.recordBatchItem ? batchItemStep(input, batch, deps.recordBatchItem) : step(input);
      // A monitor's run is nobody's wait: batch items need not yield to it.
      if (monitor && deps.monitorRuns) return monitorRunStep(input, deps.monitorRuns);
      return deps.singleCalls ? deps.singleCalls.during(() => step(input)) : step(input);
    },
  };
}

export type CallStepActivities = ReturnType<typeof createCallStep>;

/** Milliseconds to a tenth. */
const round = (ms: number) => Math.round(ms * 10) / 10;
