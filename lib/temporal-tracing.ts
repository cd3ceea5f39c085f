//! Temporal's OpenTelemetry interceptors (`@temporalio/interceptors-opentelemetry`, OpenTelemetry
//! JS 1.x) for a traced process: the client's (StartWorkflow, its context carried in the
//! `_tracer-data` header), the activities' (RunActivity) and the sink through which the workflow
//! interceptors' spans (RunWorkflow, StartActivity) leave the sandbox. Loaded by lib/tracing.ts
//! only when tracing is on.
import type { Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { InjectedSinks, WorkerOptions } from '@temporalio/worker';
import {
  type OpenTelemetrySinks,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';

export type ActivityInterceptorFactory = NonNullable<NonNullable<WorkerOptions['interceptors']>['activity']>[number];

export interface TemporalTracing {
  /** A Client's `interceptors`. */
  client: { workflow: WorkflowClientInterceptor[] };
  /** To put before a worker's own activity interceptors. */
  activityInterceptors: ActivityInterceptorFactory[];
  /**
   * A worker's `sinks`. A worker whose bundle has the workflow interceptors must have them (without
   * the sink its workflow spans go nowhere).
   */
  sinks: InjectedSinks<OpenTelemetrySinks>;
}

export function temporalTracing(tracer: Tracer, spanProcessor: SpanProcessor, resource: Resource): TemporalTracing {
  return {
    client: { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer })] },
    activityInterceptors: [
      (ctx) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
    ],
    sinks: { exporter: makeWorkflowExporter(spanProcessor, resource) },
  };
}
