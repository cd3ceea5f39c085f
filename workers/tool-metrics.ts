//! Per-tool duration and outcome of every run of a tool a worker makes (an activity of a queued
//! tool, or a run inside a call's step), recorded through the Temporal runtime's meter so they are served with the SDK's own metrics on METRICS_PORT:
//! `tool_duration_seconds` by `tool` and `outcome` (`ok`, the contract's error code,
//! `cancelled` or `error`).
import { Runtime, type ActivityInterceptorsFactory } from '@temporalio/worker';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ToolDone } from '../activities/call-step.js';

/** The outcome label of a finished activity. */
export function outcomeOf(err: unknown): string {
  if (err === undefined) return 'ok';
  if (err instanceof ApplicationFailure && err.type) return err.type;
  if (err instanceof CancelledFailure) return 'cancelled';
  return 'error';
}

/** Records one run of a tool (one histogram per pool's worker). */
export function toolDurationRecorder(): ToolDone {
  const duration = Runtime.instance().metricMeter.createHistogram(
    'tool_duration_seconds',
    'float',
    's',
    'Tool activity duration by tool and outcome',
  );
  return (tool, outcome, seconds) => duration.record(seconds, { tool, outcome });
}

/**
 * An activity interceptor for a tool pool's worker. Only `tools` are recorded: the same worker runs
 * the steps of its calls as local activities, and those record their tool runs themselves.
 */
export function toolMetricsInterceptor(tools: ReadonlySet<string>, record: ToolDone): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: !tools.has(ctx.info.activityType)
      ? {}
      : {
          async execute(input, next) {
            const started = performance.now();
            let failure: unknown;
            try {
              return await next(input);
            } catch (err) {
              failure = err ?? 'error';
              throw err;
            } finally {
              record(ctx.info.activityType, outcomeOf(failure), (performance.now() - started) / 1000);
            }
          },
        },
  });
}
