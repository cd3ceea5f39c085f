//! The active trace as the rest of the code reads it (log lines, problems, a call's memo), on
//! `@opentelemetry/api` alone: untraced, there is no active span and each read is a no-op.
import { context, trace, isSpanContextValid, SpanStatusCode, type Span } from '@opentelemetry/api';

/** Names of this service's tracer and of its span attributes (no credential is ever one). */
export const TRACER_NAME = 'utility-tools';
export const SPAN_ATTRIBUTES = {
  accountId: 'utility_tools.account_id',
  tool: 'utility_tools.tool',
  requestId: 'utility_tools.request_id',
  /** The contract's error code of a failed call or step (lib/errors.ts). */
  problemCode: 'utility_tools.problem.code',
} as const;

/** The trace id of the active span, when there is one (tracing on, inside a traced call). */
export function activeTraceId(): string | undefined {
  const span = trace.getSpan(context.active());
  const ids = span?.spanContext();
  return ids && isSpanContextValid(ids) ? ids.traceId : undefined;
}

/** The W3C `traceparent` of a span: `00-<trace id>-<span id>-<flags>`. */
export function traceparent(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-0${traceFlags.toString(16)}`;
}

/** Marks a span as failed with the contract's error code (never the message: it may quote input). */
export function markFailed(span: Span, code: string): void {
  span.setAttribute(SPAN_ATTRIBUTES.problemCode, code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}

const tracer = () => trace.getTracer(TRACER_NAME);

/** A child span of the active one, for work whose end is not one promise's (the caller ends it). */
export function startSpan(name: string, attributes: Record<string, string | number | boolean>): Span {
  return tracer().startSpan(name, { attributes });
}

/** Marks a span failed by an error: its type or class, never its message (it may quote input). */
export function spanFailed(span: Span, err: unknown): void {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^[a-z_]+$/.test(code)) span.setAttribute(SPAN_ATTRIBUTES.problemCode, code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: (err as { type?: string }).type ?? (err as Error).name });
}

/**
 * Runs `work` in a child span of the active one. Untraced, the global tracer is OpenTelemetry's
 * no-op one: no span is recorded and nothing waits. A throw marks the span failed (its error
 * type, not its message: a message may quote what a tool was given).
 */
export function inSpan<T>(name: string, attributes: Record<string, string | number | boolean>, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      spanFailed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}
