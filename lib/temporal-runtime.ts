//! Installs the Temporal runtime of a process with its logs routed through pino, so SDK and
//! worker messages share the service's format and level, and, when asked, its metrics served on a
//! loopback port for the process's operator port to pass on to Prometheus.
// The runtime's own module, not the package's index: the index loads the workflow bundler (webpack,
// swc), which the API never runs and its image does not carry (scripts/role-packages.mjs).
import type { LogLevel, LogMetadata } from '@temporalio/worker';
import { Runtime } from '@temporalio/worker/lib/runtime.js';
import { serializeError, type Logger } from './logger.js';

const PINO_LEVEL: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

export function sdkLogger(log: Logger) {
  const child = log.child({ component: 'temporal' });
  // The SDK passes errors under keys of its own choosing (`error`, `failure`): each is written out.
  const fields = (meta: LogMetadata = {}) => Object.fromEntries(Object.entries(meta).map(([key, value]) => [key, serializeError(value)]));
  const emit = (level: LogLevel, message: string, meta?: LogMetadata) => child[PINO_LEVEL[level]](fields(meta), message);
  return {
    log: emit,
    trace: (m: string, meta?: LogMetadata) => emit('TRACE', m, meta),
    debug: (m: string, meta?: LogMetadata) => emit('DEBUG', m, meta),
    info: (m: string, meta?: LogMetadata) => emit('INFO', m, meta),
    warn: (m: string, meta?: LogMetadata) => emit('WARN', m, meta),
    error: (m: string, meta?: LogMetadata) => emit('ERROR', m, meta),
  };
}

/** Buckets, in seconds, of the latencies an operator scales by: a queue wait from 5 ms to a minute. */
export const LATENCY_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * @param shutdownSignals signals on which the runtime drains this process's workers; empty
 *   when the process handles signals itself (the API).
 * @param sdkMetricsBind where the runtime serves the SDK's metrics (`host:port`, `/metrics`): a
 *   loopback port the process's operator port passes through (lib/operator-port.ts); not served
 *   without one.
 */
export function installTemporalRuntime(log: Logger, shutdownSignals: NodeJS.Signals[], sdkMetricsBind?: string): void {
  Runtime.install({
    logger: sdkLogger(log),
    shutdownSignals,
    telemetryOptions: {
      // The SDK's INFO chatter (webpack bundle listings, state changes) is noise in service logs.
      logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
      ...(sdkMetricsBind && {
        metrics: {
          prometheus: {
            bindAddress: sdkMetricsBind,
            // Prometheus conventions: seconds, counters ending in _total.
            useSecondsForDurations: true,
            countersTotalSuffix: true,
            histogramBucketOverrides: Object.fromEntries(
              [
                'activity_schedule_to_start_latency',
                'workflow_task_schedule_to_start_latency',
                'activity_execution_latency',
                'tool_duration_seconds',
              ].map((name) => [name, LATENCY_BUCKETS_S]),
            ),
          },
        },
      }),
    },
  });
}
