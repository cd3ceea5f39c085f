//! Per-tool duration and outcome of every tool activity a worker runs, recorded through the
//! Temporal runtime's meter so they are served with the SDK's own metrics on METRICS_PORT:
//! `tool_duration_seconds` by `tool` and `outcome` (`ok`, the contract's error code,
//! `cancelled` or `error`).
import { Runtime, type ActivityInterceptorsFactory } from '@temporalio/worker';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';

/** The outcome label of a finished activity. */
export function outcomeOf(err: unknown): string {
  if (err === undefined) return 'ok';
  if (err instanceof ApplicationFailure && err.type) return err.type;
  if (err instanceof CancelledFailure) return 'cancelled';
  return 'error';
}

/** An activity interceptor for a tool pool's worker (one histogram per process). */
export function toolMetricsInterceptor(): ActivityInterceptorsFactory {
  const duration = Runtime.instance().metricMeter.createHistogram('tool_duration_seconds', 'float', 's', 'Tool activity duration by tool and outcome');
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        const started = performance.now();
        let failure: unknown;
        try {
          return await next(input);
        } catch (err) {
          failure = err ?? 'error';
          throw err;
        } finally {
          duration.record((performance.now() - started) / 1000, { tool: ctx.info.activityType, outcome: outcomeOf(failure) });
        }
      },
    },
  });
}
