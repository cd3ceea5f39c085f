//! Where a traced process's spans go: batched off the request path and posted to the OTLP
//! collector; the collector's reachability reported when it changes (one warning when it stops
//! answering, one line when it is back), never per batch; and a last flush at shutdown that waits
//! a bounded time and never throws, so a collector that is down (not built yet, restarting) costs
//! a stop one warning, not a crash. Loaded by lib/tracing.ts only when tracing is on.
import { ROOT_CONTEXT, context } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Logger } from './logger.js';

/**
 * How long a stop waits for the last spans to reach the collector. One that is up answers in
 * milliseconds; this keeps a stop (its drain included) well inside a process manager's grace
 * (Docker's 10 s, the local supervisor's 15 s).
 */
export const FLUSH_DEADLINE_MS = 3_000;

/** The log messages an operator greps for (docs/OPERATING.md#traces). */
export const COLLECTOR_DOWN = 'trace collector unreachable: spans are dropped until it answers';
export const COLLECTOR_BACK = 'trace collector reachable again';
/** Debug level, one per batch the collector did not take. */
export const SPANS_NOT_EXPORTED = 'spans not exported';

export type CollectorState = 'unknown' | 'up' | 'down';

/** What an export's outcome changes for the operator: `down` or `back` when the state flips, else nothing (a first success says nothing). */
export function collectorChange(previous: CollectorState, exported: boolean): 'down' | 'back' | undefined {
  if (exported) return previous === 'down' ? 'back' : undefined;
  return previous === 'down' ? undefined : 'down';
}

/** Why an export failed, in a few words: the socket's code (ECONNREFUSED), the collector's HTTP status, or the message; never a stack. */
export function exportFailureReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error ?? 'export failed');
  const { code } = error as Error & { code?: unknown };
  if (typeof code === 'string') return code;
  if (typeof code === 'number') return `HTTP ${code}${error.message ? ` ${error.message}` : ''}`;
  return error.message || error.name;
}

/** The collector's state as exports find it, logged on each change only. */
function collectorReport(log: Logger, endpoint: string) {
  let state: CollectorState = 'unknown';
  // Outside any trace: the batch timer runs in the context of whichever call's span started it,
  // and its lines would otherwise carry that call's trace_id.
  const set = (exported: boolean, error?: unknown) => {
    const change = collectorChange(state, exported);
    state = exported ? 'up' : 'down';
    if (change === 'down') context.with(ROOT_CONTEXT, () => log.warn({ endpoint, reason: exportFailureReason(error) }, COLLECTOR_DOWN));
    else if (change === 'back') context.with(ROOT_CONTEXT, () => log.info({ endpoint }, COLLECTOR_BACK));
  };
  return {
    /** One export's outcome (the batch processor's callback: never on a call's path). */
    exported(result: ExportResult, spans: number) {
      const ok = result.code === ExportResultCode.SUCCESS;
      if (!ok)
        context.with(ROOT_CONTEXT, () => log.debug({ endpoint, spans, reason: exportFailureReason(result.error) }, SPANS_NOT_EXPORTED));
      set(ok, result.error);
    },
    /** A failure outside an export's callback: the last flush ran out of time. */
    failed: (error: unknown) => set(false, error),
  };
}

/** `inner`, with each export's outcome handed to `onResult` before the batch processor gets it. */
function reportingExporter(inner: SpanExporter, onResult: (result: ExportResult, spans: number) => void): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
      inner.export(spans, (result) => {
        onResult(result, spans.length);
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

export interface SpanExport {
  /** The tracer provider's processor: it buffers ended spans and exports them in batches, on a timer. */
  spanProcessor: SpanProcessor;
  /** Exports what is still buffered and stops, waiting at most the deadline; never rejects. */
  shutdown(): Promise<void>;
}

/**
 * The span pipeline to `tracesUrl` (OTLP/HTTP). The exporter reads the standard OTEL_EXPORTER_OTLP_*
 * and OTEL_BSP_* variables itself (headers, timeout, batch size and delay).
 * @param flushDeadlineMs how long shutdown() waits. @default FLUSH_DEADLINE_MS
 */
export function spanExport(tracesUrl: string, log: Logger, flushDeadlineMs = FLUSH_DEADLINE_MS): SpanExport {
  const collector = collectorReport(log, tracesUrl);
  const spanProcessor = new BatchSpanProcessor(reportingExporter(new OTLPTraceExporter({ url: tracesUrl }), collector.exported));
  return {
    spanProcessor,
    async shutdown() {
      // A refused export was reported by its callback already; the batch processor's rejection of
      // the flush is caught here, so it never reaches the process as an uncaught error.
      const flushed = spanProcessor.shutdown().then(
        () => 'done' as const,
        () => 'done' as const,
      );
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, flushDeadlineMs, 'late')));
      const outcome = await Promise.race([flushed, late]);
      clearTimeout(timer);
      if (outcome === 'late') collector.failed(new Error(`no answer within ${flushDeadlineMs} ms`));
    },
  };
}
