//! Installs the Temporal runtime of a process with its logs routed through pino, so SDK and
//! worker messages share the service's format and level.
import { Runtime, type LogLevel, type LogMetadata } from '@temporalio/worker';
import type { Logger } from './logger.js';

const PINO_LEVEL: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

export function sdkLogger(log: Logger) {
  const child = log.child({ component: 'temporal' });
  const emit = (level: LogLevel, message: string, meta?: LogMetadata) => child[PINO_LEVEL[level]](meta ?? {}, message);
  return {
    log: emit,
    trace: (m: string, meta?: LogMetadata) => emit('TRACE', m, meta),
    debug: (m: string, meta?: LogMetadata) => emit('DEBUG', m, meta),
    info: (m: string, meta?: LogMetadata) => emit('INFO', m, meta),
    warn: (m: string, meta?: LogMetadata) => emit('WARN', m, meta),
    error: (m: string, meta?: LogMetadata) => emit('ERROR', m, meta),
  };
}

/**
 * @param shutdownSignals signals on which the runtime drains this process's workers; empty
 *   when the process handles signals itself (the API).
 */
export function installTemporalRuntime(log: Logger, shutdownSignals: NodeJS.Signals[]): void {
  Runtime.install({
    logger: sdkLogger(log),
    shutdownSignals,
    // The SDK's INFO chatter (webpack bundle listings, state changes) is noise in service logs.
    telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } },
  });
}
