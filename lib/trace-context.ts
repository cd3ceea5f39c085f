//! The active trace as the rest of the code reads it (log lines, problems, a call's memo), on
//! `@opentelemetry/api` alone. Untraced (no `useTracer`), each read returns at once and each span
//! helper runs its work as it is: no span object, no context switch, no await of its own.
import {
  context,
  trace,
  isSpanContextValid,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  SpanStatusCode,
  TraceFlags,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';

/** Names of this service's tracer and of its span attributes (no credential is ever one). */
export const TRACER_NAME = 'utility-tools';
export const SPAN_ATTRIBUTES = {
  accountId: 'utility_tools.account_id',
  tool: 'utility_tools.tool',
  requestId: 'utility_tools.request_id',
  /** The contract's error code of a failed call or step (contracts/errors.ts). */
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

/** The active span's ids, when tracing is on and a valid span is active. */
function activeSpanContext(): SpanContext | undefined {
  if (!tracer) return undefined;
  const ids = trace.getSpan(context.active())?.spanContext();
  return ids && isSpanContextValid(ids) ? ids : undefined;
}

/** The trace id of the active span, when there is one (tracing on, inside a traced call). */
export function activeTraceId(): string | undefined {
  return activeSpanContext()?.traceId;
}

/** The trace id of the active span when its trace is sampled: one a trace backend will have. */
export function sampledTraceId(): string | undefined {
  const ids = activeSpanContext();
  return ids && (ids.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED ? ids.traceId : undefined;
}

/** Whether this process traces (lib/tracing.ts started it): work done only for traces checks this first. */
export function isTracing(): boolean {
  return tracer !== undefined;
}

/** Whether a sampled trace is being recorded here: work that only adds to it can be skipped otherwise. */
export function isRecordingTrace(): boolean {
  return tracer !== undefined && trace.getSpan(context.active())?.isRecording() === true;
}

/** The active span's `traceparent`, when a sampled trace is being recorded: what a later trace links to. */
export function activeTraceparent(): string | undefined {
  if (!tracer) return undefined;
  const span = trace.getSpan(context.active());
  return span?.isRecording() ? traceparent(span) : undefined;
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
export function inSpan<T>(
  name: string,
  attributes: Record<string, string | number | boolean>,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  if (!tracer) return work(NO_SPAN);
  return tracer.startActiveSpan(name, { attributes }, (span) => endedAfter(span, work));
}

/** `work` in `span`, which ends with it: failed by a throw (its error type, not its message). */
async function endedAfter<T>(span: Span, work: (span: Span) => Promise<T>): Promise<T> {
  try {
    return await work(span);
  } catch (err) {
    spanFailed(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** `{ traceparent }` of the active recorded span, or nothing: for a document whose later work joins or links to this trace. */
export function withTraceparent(): { traceparent?: string } {
  const traceparent = activeTraceparent();
  return traceparent ? { traceparent } : {};
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span a `traceparent` names, as a remote parent or link. */
function spanContextOf(header: string | undefined): SpanContext | undefined {
  const ids = header ? TRACEPARENT.exec(header) : null;
  return ids ? { traceId: ids[1]!, spanId: ids[2]!, traceFlags: parseInt(ids[3]!, 16) & TraceFlags.SAMPLED, isRemote: true } : undefined;
}

/**
 * Runs `work` outside the active trace: a signal to a long-lived workflow (an account's batch
 * runner, a webhook endpoint's) whose run would otherwise hang in the trace of whichever request
 * first started it, its spans never ending there. The work done for a trace is tied to it
 * explicitly instead (underParent, inLinkedRoot).
 */
export function detached<T>(work: () => Promise<T>): Promise<T> {
  return tracer ? context.with(ROOT_CONTEXT, work) : work();
}

/**
 * Runs `work` as a child of the span `parent` names (a `traceparent` kept with a document): work
 * done later for that request (a batch's items, started by its runner as credits allow).
 */
export function underParent<T>(parent: string | undefined, work: () => Promise<T>): Promise<T> {
  const parentContext = tracer && spanContextOf(parent);
  return parentContext ? context.with(trace.setSpanContext(ROOT_CONTEXT, parentContext), work) : work();
}

/**
 * Runs `work` as the root of a trace of its own, linked to the span `cause` names (a
 * `traceparent`, from activeTraceparent when the cause ran): work done later for another trace's
 * sake (a webhook delivery for the call or request that made its event), found from either.
 */
export function inLinkedRoot<T>(
  name: string,
  attributes: Record<string, string | number | boolean>,
  cause: string | undefined,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  if (!tracer) return work(NO_SPAN);
  const causeContext = spanContextOf(cause);
  const links: Link[] = causeContext ? [{ context: causeContext }] : [];
  return tracer.startActiveSpan(name, { attributes, links, root: true }, (span) => endedAfter(span, work));
}
