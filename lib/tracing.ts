//! OpenTelemetry tracing of a process: its tracer provider and sampler, from the standard `OTEL_*`
//! variables (lib/config.ts), with its spans sent to the collector by lib/span-export.ts. Off (no
//! endpoint configured) nothing is loaded or installed: no SDK, no context manager, no Temporal
//! interceptors, so an untraced call costs nothing.
import type { Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { Sampler, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { fileURLToPath } from 'node:url';
import type { TracingConfig } from './config.js';
import type { Logger } from './logger.js';
import { TRACER_NAME, useTracer } from './trace-context.js';
import type { TemporalTracing } from './temporal-tracing.js';

/**
 * The workflow interceptors' module (lib/workflow-tracing.cjs: Temporal's, for sampled runs only),
 * bundled into a traced worker's workflow code (workers/workflow-bundle.ts): a prebuilt bundle
 * ignores `interceptors.workflowModules` (the SDK reads it only when it bundles), so the traced bundle is built with it
 * and cached apart from the untraced one.
 */
export const WORKFLOW_TRACING_MODULE = fileURLToPath(new URL('./workflow-tracing.cjs', import.meta.url));

export interface Tracing {
  tracer: Tracer;
  /** Temporal's interceptors and sinks for this process's clients and workers. */
  temporal: TemporalTracing;
  /** What the worker's workflow span exporter (a sink) needs: workflow spans are made in the sandbox. */
  resource: Resource;
  spanProcessor: SpanProcessor;
  /**
   * Exports what is still buffered, then stops: waits a bounded time and never rejects (a
   * collector that cannot be reached is one warning line, lib/span-export.ts).
   */
  shutdown(): Promise<void>;
}

/**
 * Installs the process's tracer provider (global, so the Temporal interceptors find it) and
 * returns it; undefined when tracing is off. The SDK is loaded only then.
 * @param role `api` or `worker`: the service name when OTEL_SERVICE_NAME does not give one.
 * @param log where the collector's reachability is reported (when it changes, not per export).
 */
export async function startTracing(config: TracingConfig | undefined, role: string, log: Logger): Promise<Tracing | undefined> {
  if (!config) return undefined;
  const [{ Resource }, sdk, { spanExport }, { temporalTracing }] = await Promise.all([
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-node'),
    import('./span-export.js'),
    import('./temporal-tracing.js'),
  ]);
  const ratioOrFixed = (name: string): Sampler =>
    name.endsWith('always_on')
      ? new sdk.AlwaysOnSampler()
      : name.endsWith('always_off')
        ? new sdk.AlwaysOffSampler()
        : new sdk.TraceIdRatioBasedSampler(config.ratio);
  const sampler = config.sampler.startsWith('parentbased_')
    ? new sdk.ParentBasedSampler({ root: ratioOrFixed(config.sampler) })
    : ratioOrFixed(config.sampler);
  const resource = new Resource({ 'service.name': config.serviceName ?? `utility-tools-${role}`, 'service.namespace': 'utility-tools' });
  const { spanProcessor, shutdown } = spanExport(config.tracesUrl, log);
  const provider = new sdk.NodeTracerProvider({ resource, sampler, spanProcessors: [spanProcessor] });
  // The AsyncLocalStorage context manager and the W3C trace-context propagator.
  provider.register();
  const tracer = provider.getTracer(TRACER_NAME);
  useTracer(tracer);
  return { tracer, temporal: temporalTracing(tracer, spanProcessor, resource), resource, spanProcessor, shutdown };
}
