//! The workflow side of tracing, bundled into a traced worker's workflow code (lib/tracing.ts):
//! Temporal's OpenTelemetry workflow interceptors, for the runs whose trace is sampled only.
//!
//! A workflow sandbox evaluates every module its run loads, per run, and promises made there each
//! record a stack trace: loaded for every run, OpenTelemetry's modules (its SDK, semantic
//! conventions, a tracer provider per run) were most of what tracing cost a call at the default
//! 10% sampling. So a run started with a sampled trace (its `_tracer-data` header) loads them
//! and runs them as they are; any other run loads nothing, hands its trace context on to its
//! activities unchanged (their log lines keep the `trace_id`) and names its trace in its own log
//! attributes. The choice is made from the run's start, which is in its history: a replay makes
//! the same one. CommonJS, because webpack evaluates a `require` made in a function only when it
//! runs, and an ES module's imports always.
'use strict';
const { defaultPayloadConverter } = require('@temporalio/workflow');

/** Where Temporal's interceptors carry a trace context (a W3C `traceparent`), as theirs do. */
const TRACE_HEADER = '_tracer-data';
const TRACEPARENT = /^00-([0-9a-f]{32})-[0-9a-f]{16}-([0-9a-f]{2})$/;

/** The trace context a start, signal or update carries: its trace id, whether it is sampled, and the header itself. */
function traceOf(headers) {
  const payload = headers && headers[TRACE_HEADER];
  if (!payload) return undefined;
  const carrier = defaultPayloadConverter.fromPayload(payload);
  const ids = carrier && typeof carrier.traceparent === 'string' ? TRACEPARENT.exec(carrier.traceparent) : null;
  return ids ? { traceId: ids[1], sampled: (parseInt(ids[2], 16) & 1) === 1, payload } : undefined;
}

exports.interceptors = () => {
  /** This run's trace context, from its start. */
  let run;
  /** OpenTelemetry's interceptors, once a sampled trace needed them. */
  let otel;
  const load = () => (otel ??= require('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors').interceptors());
  /** OpenTelemetry's inbound interceptor for what carries a sampled trace. */
  const inboundFor = (headers) => (traceOf(headers)?.sampled ? load().inbound[0] : undefined);
  /** OpenTelemetry's outbound interceptor when this run is sampled. */
  const outbound = () => (run?.sampled ? load().outbound[0] : undefined);
  /** An unsampled run's commands carry its context on, as OpenTelemetry's interceptors would have. */
  const carried = (input) => (run ? { ...input, headers: { ...input.headers, [TRACE_HEADER]: run.payload } } : input);
  const handled = (method) => (input, next) => {
    const traced = inboundFor(input.headers);
    return traced ? traced[method](input, next) : next(input);
  };
  const sent = (method) => (input, next) => {
    const traced = outbound();
    return traced ? traced[method](input, next) : next(carried(input));
  };
  return {
    inbound: [
      {
        execute(input, next) {
          run = traceOf(input.headers);
          const traced = outbound();
          return traced ? load().inbound[0].execute(input, next) : next(input);
        },
        handleSignal: handled('handleSignal'),
        handleUpdate: handled('handleUpdate'),
        validateUpdate: handled('validateUpdate'),
        handleQuery: handled('handleQuery'),
      },
    ],
    outbound: [
      {
        scheduleActivity: sent('scheduleActivity'),
        scheduleLocalActivity: sent('scheduleLocalActivity'),
        startChildWorkflowExecution: sent('startChildWorkflowExecution'),
        continueAsNew: sent('continueAsNew'),
        signalWorkflow: sent('signalWorkflow'),
        getLogAttributes(input, next) {
          const traced = outbound();
          if (traced) return traced.getLogAttributes(input, next);
          return next(run ? { trace_id: run.traceId, ...input } : input);
        },
      },
    ],
    internals: [
      {
        dispose(input, next) {
          const traced = otel?.internals[0];
          return traced ? traced.dispose(input, next) : next(input);
        },
      },
    ],
  };
};
