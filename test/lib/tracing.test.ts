//! Tracing's configuration from the standard OTEL_* variables (lib/config.ts): off unless an
//! endpoint is set, the sampler and its ratio checked at start, and what a traced process installs
//! (lib/tracing.ts): spans in the active context, a `traceparent` that names them, and the no-op
//! reads (trace id, `inSpan`) when nothing is installed. No stack needed.
import test from 'ava';
import { ConfigError, loadConfig } from '../../lib/config.js';
import type { Link } from '@opentelemetry/api';
import {
  activeTraceId,
  detached,
  inLinkedRoot,
  inSpan,
  isTracing,
  startSpan,
  traceparent,
  underParent,
  withTraceparent,
} from '../../lib/trace-context.js';

const BASE = { MONGODB_URL: 'mongodb://127.0.0.1:1/x', SECRET_KEY: '0'.repeat(64) };

test.serial('untraced: no active trace, and inSpan runs the work as it is', async (t) => {
  // Nothing installed yet in this process (serial, before the traced test): OpenTelemetry's no-op API.
  t.is(await inSpan('work', {}, async () => activeTraceId()), undefined);
  t.is(await inSpan('work', {}, async () => 42), 42);
  await t.throwsAsync(
    inSpan('work', {}, async () => Promise.reject(new Error('boom'))),
    { message: 'boom' },
  );
  // Tracing off costs nothing: the work's own promise comes back (no wrapper, no await of its
  // own), and no span is made per call (one shared no-op span).
  const work = Promise.resolve(7);
  t.is(
    inSpan('work', {}, () => work),
    work,
  );
  t.is(startSpan('a', { x: 1 }), startSpan('b', {}));
  t.false(startSpan('a', {}).isRecording());
  const cause = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  t.is(
    underParent(cause, () => work),
    work,
  );
  t.is(
    inLinkedRoot('later', {}, cause, () => work),
    work,
  );
  t.is(
    detached(() => work),
    work,
  );
  t.false(isTracing());
  t.deepEqual(withTraceparent(), {}, 'nothing kept with a document');
});

test('tracing is off without an endpoint, or when OTEL_SDK_DISABLED is true', (t) => {
  t.is(loadConfig(BASE).tracing, undefined);
  t.is(loadConfig({ ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }).tracing, undefined);
});

test('an endpoint turns it on with the default sampling; the traces URL, sampler, ratio and name follow the variables', (t) => {
  t.deepEqual(loadConfig({ ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing, {
    tracesUrl: 'http://collector:4318/v1/traces',
    sampler: 'parentbased_traceidratio',
    ratio: 0.1,
    serviceName: undefined,
  });
  t.like(
    loadConfig({
      ...BASE,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/custom',
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_TRACES_SAMPLER_ARG: '0.5',
      OTEL_SERVICE_NAME: 'tools',
    }).tracing,
    { tracesUrl: 'https://collector/custom', sampler: 'always_on', ratio: 0.5, serviceName: 'tools' },
  );
});

test('a bad sampler, ratio or endpoint stops the start with the variable named', (t) => {
  const on = { ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
  t.throws(() => loadConfig({ ...on, OTEL_TRACES_SAMPLER: 'sometimes' }), { instanceOf: ConfigError, message: /OTEL_TRACES_SAMPLER/ });
  t.throws(() => loadConfig({ ...on, OTEL_TRACES_SAMPLER_ARG: '2' }), { instanceOf: ConfigError, message: /OTEL_TRACES_SAMPLER_ARG/ });
  t.throws(() => loadConfig({ ...on, OTEL_TRACES_SAMPLER_ARG: 'half' }), { instanceOf: ConfigError, message: /OTEL_TRACES_SAMPLER_ARG/ });
  t.throws(() => loadConfig({ ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: '127.0.0.1:4317' }), {
    instanceOf: ConfigError,
    message: /OTEL_EXPORTER_OTLP_ENDPOINT/,
  });
});

test.serial('traced: spans nest in the active context and traceparent names the span', async (t) => {
  const { startTracing } = await import('../../lib/tracing.js');
  // Exports go nowhere (a closed port): this test reads the context, not the collector.
  const { createLogger } = await import('../../lib/logger.js');
  const tracing = (await startTracing(
    { tracesUrl: 'http://127.0.0.1:9/v1/traces', sampler: 'always_on', ratio: 1 },
    'test',
    createLogger({ name: 'test', level: 'silent' }),
  ))!;
  try {
    const root = tracing.tracer.startSpan('root');
    const header = traceparent(root);
    t.regex(header, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const { context, trace } = await import('@opentelemetry/api');
    const inner = await context.with(trace.setSpan(context.active(), root), () => inSpan('child', {}, async () => activeTraceId()));
    t.is(inner, root.spanContext().traceId, "the child is in the root span's trace");
    const kept = await context.with(trace.setSpan(context.active(), root), async () => withTraceparent());
    t.deepEqual(kept, { traceparent: header }, 'what a document keeps: the recording span');
    root.end();

    // Later work for that trace: a child of the kept span, or a trace of its own linked to it.
    t.is(await underParent(header, () => inSpan('item', {}, async () => activeTraceId())), root.spanContext().traceId);
    const linked = await inLinkedRoot('delivery', {}, header, async (span) => ({
      traceId: activeTraceId(),
      links: (span as unknown as { links: Link[] }).links,
    }));
    t.not(linked.traceId, root.spanContext().traceId, 'a trace of its own');
    t.deepEqual(
      linked.links.map((l) => [l.context.traceId, l.context.spanId]),
      [[root.spanContext().traceId, root.spanContext().spanId]],
    );
    t.is(
      await context.with(trace.setSpan(context.active(), root), () => detached(async () => activeTraceId())),
      undefined,
      'detached: outside the trace',
    );
  } finally {
    await tracing.shutdown();
  }
});
