//! The workflow side of tracing (lib/workflow-tracing.cjs), on the time-skipping test server with a
//! traced worker as the service builds one (the module bundled in, the span sink given): a run
//! started with a sampled trace records its workflow and activity-start spans in that trace and
//! hands its activities child contexts; a run started with an unsampled trace records nothing and
//! hands its activities that same context, unchanged; a run started with none hands on none.
import test from 'ava';
import { Client, type WorkflowClientInterceptor } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Resource } from '@opentelemetry/resources';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startWorkflowTestBed, type WorkflowTestBed } from '../helpers/workflow-test-bed.js';
import { WORKFLOW_TRACING_MODULE } from '../../lib/tracing.js';
import { temporalTracing } from '../../lib/temporal-tracing.js';

const TASK_QUEUE = 'workflow-tracing';
const TRACE_HEADER = '_tracer-data';
const spans = new InMemorySpanExporter();
/** The `traceparent` each activity was handed, by workflow id, in the order they ran. */
const handed = new Map<string, (string | undefined)[]>();
let bed: WorkflowTestBed;

test.before(async () => {
  bed = await startWorkflowTestBed('workflow_tracing_tests', async (env) => {
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./support/trace-carrier.ts', import.meta.url)),
      workflowInterceptorModules: [WORKFLOW_TRACING_MODULE],
      logger: new DefaultLogger('WARN'),
    });
    const tracer = {
      startSpan: () => {
        throw new Error('no span is started outside the sandbox here');
      },
    } as never;
    const { sinks } = temporalTracing(tracer, new SimpleSpanProcessor(spans), new Resource({ 'service.name': 'workflow-tracing-test' }));
    return [
      await Worker.create({
        connection: env.nativeConnection,
        namespace: env.namespace ?? 'default',
        taskQueue: TASK_QUEUE,
        workflowBundle,
        sinks,
        activities: { seen: async () => {} },
        interceptors: {
          activity: [
            (ctx) => ({
              inbound: {
                execute(input, next) {
                  const header = input.headers[TRACE_HEADER];
                  const workflowId = ctx.info.workflowExecution?.workflowId ?? '';
                  const list = handed.get(workflowId) ?? [];
                  list.push(header ? (defaultPayloadConverter.fromPayload(header) as { traceparent: string }).traceparent : undefined);
                  handed.set(workflowId, list);
                  return next(input);
                },
              },
            }),
          ],
        },
      }),
    ];
  });
});

test.after.always(async () => {
  await bed?.close();
});

/** Runs the workflow as a client whose start carries `traceparent` (none: no header), and answers its id. */
async function runWith(traceparent: string | undefined): Promise<string> {
  const withHeader: WorkflowClientInterceptor = {
    start: (input, next) =>
      next(
        traceparent
          ? { ...input, headers: { ...input.headers, [TRACE_HEADER]: defaultPayloadConverter.toPayload({ traceparent }) as Payload } }
          : input,
      ),
  };
  const client = new Client({ connection: bed.env.connection, namespace: bed.env.namespace, interceptors: { workflow: [withHeader] } });
  const workflowId = `carries-${randomBytes(6).toString('hex')}`;
  await client.workflow.execute('carriesTrace', { taskQueue: TASK_QUEUE, workflowId });
  return workflowId;
}

const ids = () => ({ traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') });
const spansOf = (traceId: string) => spans.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);

test.serial('a run started with a sampled trace records its spans in it and hands its activities child contexts', async (t) => {
  const { traceId, spanId } = ids();
  const workflowId = await runWith(`00-${traceId}-${spanId}-01`);
  const names = spansOf(traceId)
    .map((s) => s.name)
    .sort();
  t.true(names.includes('RunWorkflow:carriesTrace'), names.join(', '));
  t.is(names.filter((n) => n === 'StartActivity:seen').length, 2, names.join(', '));
  const run = spansOf(traceId).find((s) => s.name === 'RunWorkflow:carriesTrace')!;
  t.is(run.parentSpanId, spanId, 'the workflow is a child of the span that started it');
  const contexts = handed.get(workflowId)!;
  t.is(contexts.length, 2);
  for (const context of contexts) {
    t.regex(context!, new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    t.false(context!.includes(spanId), 'each activity is handed its own start span, not the caller');
  }
});

test.serial('a run started with an unsampled trace records nothing and hands its activities that context unchanged', async (t) => {
  const { traceId, spanId } = ids();
  const traceparent = `00-${traceId}-${spanId}-00`;
  const workflowId = await runWith(traceparent);
  t.deepEqual(spansOf(traceId), []);
  t.deepEqual(handed.get(workflowId), [traceparent, traceparent]);
});

test.serial('a run started with no trace hands its activities none, and records no span', async (t) => {
  const before = spans.getFinishedSpans().length;
  const workflowId = await runWith(undefined);
  t.deepEqual(handed.get(workflowId), [undefined, undefined]);
  t.is(spans.getFinishedSpans().length, before);
});
