//! Structured logging (pino). Secrets are redacted by path as a last line of defence; the first
//! is never to log tool input or credentials at all.
import { pino, type Logger } from 'pino';
import { activeTraceId } from './trace-context.js';

export type { Logger };

const REDACT = [
  'password',
  '*.password',
  '*.*.password',
  'username',
  '*.username',
  'secret',
  '*.secret',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'key',
  '*.key',
  'ownerToken',
  '*.ownerToken',
];

/** Causes followed below an error: enough for a failure's chain, bounded against cycles. */
const MAX_CAUSES = 4;

/**
 * An error as a log line can hold it: its type (a Temporal failure's `type`, else its class), its
 * message, its `code` when it has one, its stack and its causes. JSON of an Error is `{}`, so an
 * error logged as it is tells the operator nothing. Payloads and details stay out: a failure's
 * details may carry what a tool was given.
 */
export function serializeError(value: unknown, depth = 0): unknown {
  if (!(value instanceof Error)) return value;
  const err = value as Error & { type?: unknown; code?: unknown };
  return {
    type: typeof err.type === 'string' && err.type ? err.type : err.name,
    message: err.message,
    ...((typeof err.code === 'string' || typeof err.code === 'number') && { code: err.code }),
    ...(err.stack && { stack: err.stack }),
    ...(err.cause !== undefined && depth < MAX_CAUSES && { cause: serializeError(err.cause, depth + 1) }),
  };
}

function traceField(): { trace_id?: string } {
  const traceId = activeTraceId();
  return traceId ? { trace_id: traceId } : {};
}

/** @param destination where lines go. @default standard output */
export function createLogger(options: { level?: string; name: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      redact: { paths: REDACT, censor: '[redacted]' },
      base: { pid: process.pid },
      serializers: { err: serializeError, error: serializeError },
      // The call's trace on each of its lines (tracing on; untraced, no active span and no field).
      mixin: traceField,
    },
    options.destination,
  );
}
