//! The active trace as the rest of the code reads it (log lines, problems, a call's memo), on
//! `@opentelemetry/api` alone. Untraced (no `useTracer`), each read returns at once and each span
//! helper runs its work as it is: no span object, no context switch, no await of its own.
import { context, trace, isSpanContextValid, INVALID_SPAN_CONTEXT, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';

/** Names of this service's tracer and of its span attributes (no credential is ever one). */
export const TRACER_NAME = 'utility-tools';
export const SPAN_ATTRIBUTES = {
  accountId: 'utility_tools.account_id',
  tool: 'utility_tools.tool',
  requestId: 'utility_tools.request_id',
  /** The contract's error code of a failed call or step (lib/errors.ts). */
  problemCode: 'utility_tools.problem.code',
} as const;

/** The process's tracer once lib/tracing.ts started tracing; undefined: tracing off. */
let tracer: Tracer | undefined;
/** The one span every helper hands its work untraced: it records nothing, so it may be shared. */
const NO_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Turns the helpers below on (lib/tracing.ts, with the tracer it installed). */
export function useTracer(installed: Tracer): void {
  tracer = installed;
}

/** The trace id of the active span, when there is one (tracing on, inside a traced call). */
export function activeTraceId(): string | undefined {
  if (!tracer) return undefined;
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

/** A child span of the active one, for work whose end is not one promise's (the caller ends it). */
export function startSpan(name: string, attributes: Record<string, string | number | boolean>): Span {
  return tracer ? tracer.startSpan(name, { attributes }) : NO_SPAN;
}

/** Marks a span failed by an error: its type or class, never its message (it may quote input). */
export function spanFailed(span: Span, err: unknown): void {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^[a-z_]+$/.test(code)) span.setAttribute(SPAN_ATTRIBUTES.problemCode, code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: (err as { type?: string }).type ?? (err as Error).name });
}

/**
 * Runs `work` in a child span of the active one; untraced, `work`'s own promise is returned as it
 * is. A throw marks the span failed (its error type, not its message: a message may quote what a
 * tool was given).
 */
export function inSpan<T>(name: string, attributes: Record<string, string | number | boolean>, work: (span: Span) => Promise<T>): Promise<T> {
  if (!tracer) return work(NO_SPAN);
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
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
