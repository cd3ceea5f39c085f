//! The service's processes with their trace collector down (an OTLP endpoint nothing listens on:
//! Jaeger still being built under `npm start`, a collector restarting): calls run, the refusal is
//! one warning line naming the endpoint, not one per export, and a stop (SIGTERM, as `npm start`'s
//! supervisor sends on Ctrl-C) drains and exits 0 with no stack trace, a final flush that fails
//! included. The real entry points, spawned as the stack spawns them (scripts/stack/apps.ts): the
//! API on the stack's Temporal and database; a worker on a time-skipping server of its own, so it
//! takes none of the other suites' tasks. Every worker entry point (workers/*.ts) is runPools()
//! over its pools: the core pool's, the lightest, stands for them.
import test, { type ExecutionContext } from 'ava';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Supervisor, type ManagedProcess } from '../../scripts/stack/supervisor.js';
import { startNode } from '../../scripts/stack/apps.js';
import { freePort, waitForHttp, waitUntil } from '../../scripts/stack/net.js';
import { COLLECTOR_DOWN, SPANS_NOT_EXPORTED } from '../../lib/span-export.js';
import { startTracing } from '../../lib/tracing.js';
import { createLogger } from '../../lib/logger.js';
import { TASK_QUEUES, WORKFLOW_TYPES } from '../../contracts/temporal-names.js';
import { adminToken, request, type UncheckedJson } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';
import { closedPort } from '../fixtures/http-pages.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Generous: a start on a busy machine bundles, connects and compiles. */
const READY_MS = 120_000;

/** The processes of one test, supervised as `npm start` supervises them; their logs kept with the run's. */
function supervise(name: string) {
  const supervisor = new Supervisor({ logDir: path.join(testEnv.outputDir(), 'collector-down', name) });
  const unexpected: string[] = [];
  supervisor.onUnexpectedExit((p) => unexpected.push(p.describeExit()));
  return { supervisor, unexpected };
}

/** Every line a process writes, and its JSON log lines with message `msg`. */
function output(proc: ManagedProcess) {
  const lines: string[] = [];
  proc.onLine((line) => lines.push(line));
  const logged = (msg: string) =>
    lines.flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as Record<string, UncheckedJson>;
        return parsed.msg === msg ? [parsed] : [];
      } catch {
        return [];
      }
    });
  return { lines, logged };
}

/** The environment of a spawned process: the stack's, its traces sent to a port nothing listens on. */
async function downCollectorEnv(extra: NodeJS.ProcessEnv): Promise<{ env: NodeJS.ProcessEnv; tracesUrl: string }> {
  const endpoint = `http://127.0.0.1:${await closedPort('127.0.0.1')}`;
  const env = {
    ...process.env,
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
    OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    METRICS_PORT: '',
    ...extra,
  };
  return { env, tracesUrl: `${endpoint}/v1/traces` };
}

/** A crash's marks: Node's report of an uncaught error and the frames of a stack trace. */
const CRASH = /triggerUncaughtException|UnhandledPromiseRejection|^\s+at\s/m;

/** After a stop: exit 0 by itself, no crash report from the supervisor, no stack trace, the one warning naming the endpoint. */
function stoppedCleanly(
  t: ExecutionContext,
  proc: ManagedProcess,
  out: ReturnType<typeof output>,
  unexpected: string[],
  tracesUrl: string,
) {
  t.deepEqual(proc.exitInfo, { code: 0, signal: null }, proc.tail());
  t.deepEqual(unexpected, [], 'the supervisor reports no crash');
  const crash = out.lines.find((line) => CRASH.test(line));
  t.is(crash, undefined, `a stack trace in the output:\n${proc.tail()}`);
  const warnings = out.logged(COLLECTOR_DOWN);
  t.is(warnings.length, 1, `one warning:\n${proc.tail()}`);
  t.like(warnings[0], { level: 40, endpoint: tracesUrl, reason: 'ECONNREFUSED' });
  t.false('stack' in (warnings[0] ?? {}));
  t.false('trace_id' in (warnings[0] ?? {}), 'about the process, not about the call whose span started the batch');
}

test('the API: calls answer, a SIGTERM flushes their spans to the collector that is down, one warning, exit 0', async (t) => {
  const { supervisor, unexpected } = supervise('api');
  // Every span waits for the last flush (no timed export before it): that flush is what is refused.
  const { env, tracesUrl } = await downCollectorEnv({ LOG_LEVEL: 'info', OTEL_BSP_SCHEDULE_DELAY: '600000' });
  const apiPort = await freePort();
  const api = startNode(supervisor, { root: ROOT, env, apiPort }, 'api', 'api/server.ts');
  const out = output(api);
  try {
    const baseUrl = `http://127.0.0.1:${apiPort}`;
    await waitForHttp(`${baseUrl}/readyz`, { what: 'API', timeoutMs: READY_MS, processes: [api] });
    // Calls through it: the stack's workers run them (same Temporal, same database).
    const opened = await request('POST', '/api/v1/admin/accounts', {
      baseUrl,
      token: adminToken(),
      body: { name: 'collector down', credits: 10 },
    });
    t.is(opened.status, 201);
    for (const text of ['one', 'two']) {
      const res = await request('POST', '/api/v1/tools/hash-text', {
        baseUrl,
        token: opened.body.apiKey.key,
        body: { text, algorithm: 'sha256' },
      });
      t.is(res.status, 200, JSON.stringify(res.body));
      t.regex(res.headers.get('traceparent') ?? '', /-01$/, 'sampled: its spans are buffered');
    }
    t.is(out.logged(COLLECTOR_DOWN).length, 0, 'nothing exported yet');
  } finally {
    await supervisor.stopAll();
  }
  t.is(out.logged('shutting down').length, 1);
  stoppedCleanly(t, api, out, unexpected, tracesUrl);
});

test('a worker: one warning while its workflows run, not one per export; a SIGTERM ends it with 0', async (t) => {
  const { supervisor, unexpected } = supervise('worker');
  const temporal = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: testEnv.temporalTestServerPath() } },
  });
  // This process's own client traces the starts (sampled), so the worker records the runs' spans;
  // its exports are refused too, and said nowhere.
  const { env, tracesUrl } = await downCollectorEnv({
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: 'default',
    MONGODB_URL: testEnv.mongodbUrl().replace(/\/[^/]*$/, '/collector_down_tests'),
    // Debug: one line per refused batch, so the test sees each export; a batch every second.
    LOG_LEVEL: 'debug',
    OTEL_BSP_SCHEDULE_DELAY: '1000',
  });
  const tracing = (await startTracing(
    { tracesUrl, sampler: 'always_on', ratio: 1 },
    'test',
    createLogger({ name: 'test', level: 'silent' }),
  ))!;
  const worker = startNode(supervisor, { root: ROOT, env, apiPort: await freePort() }, 'worker-core', 'workers/core.ts');
  const out = output(worker);
  const until = (what: string, check: () => boolean) => waitUntil(async () => check(), { what, timeoutMs: READY_MS, processes: [worker] });
  try {
    await until('the worker polling', () => out.logged('workers polling').length > 0);
    const client = new Client({ connection: temporal.connection, namespace: 'default', interceptors: tracing.temporal.client });
    for (let run = 1; run <= 3; run++) {
      const before = out.logged(SPANS_NOT_EXPORTED).length;
      await client.workflow.execute(WORKFLOW_TYPES.sweeper, {
        taskQueue: TASK_QUEUES.core,
        workflowId: `collector-down-sweep-${run}-${Date.now()}`,
      });
      await until(`the spans of sweep ${run} exported`, () => out.logged(SPANS_NOT_EXPORTED).length > before);
    }
    t.true(out.logged(SPANS_NOT_EXPORTED).length >= 3, 'three batches or more were refused');
    t.is(out.logged(COLLECTOR_DOWN).length, 1, 'and one warning said so');
    // One more run, stopped at once: its spans are (almost always) still buffered, so the last
    // flush is refused too. Exit 0 either way; this is what made a stop crash.
    await client.workflow.execute(WORKFLOW_TYPES.sweeper, {
      taskQueue: TASK_QUEUES.core,
      workflowId: `collector-down-sweep-last-${Date.now()}`,
    });
  } finally {
    await supervisor.stopAll();
    await tracing.shutdown().catch(() => {}); // this process's own exports: not what is judged
    await temporal.teardown();
  }
  t.is(out.logged('workers stopped').length, 1);
  stoppedCleanly(t, worker, out, unexpected, tracesUrl);
});
