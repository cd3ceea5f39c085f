//! A worker process's health endpoint, on its operator port (METRICS_PORT): 200 while it polls its
//! queues, Temporal answers and its browser and converter are warm; 503 `unavailable` naming what
//! is wrong otherwise. The stack's worker process for the healthy case; for the failures, the same
//! checks over a Temporal dev server this file stops and a browser pool that cannot start.
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createBrowserPool } from '../../activities/browser/browser-pool.js';
import { createFilteringProxy } from '../../activities/browser/filtering-proxy.js';
import { loadAdHostList } from '../../activities/browser/ad-hosts.js';
import { createLogger } from '../../lib/logger.js';
import { startOperatorPort } from '../../lib/operator-port.js';
import { freePort } from '../../scripts/stack/net.js';
import { workerHealthChecks, type WorkerHealthState } from '../../workers/health.js';
import type { UncheckedJson } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';
import { startTestNetwork } from '../helpers/network-access.js';

const log = createLogger({ name: 'health-test', level: 'error' });

async function health(url: string): Promise<{ status: number; body: UncheckedJson }> {
  const res = await fetch(`${url}/healthz`);
  return { status: res.status, body: await res.json() };
}

test("the stack's worker process answers 200 once it polls, Temporal answers and its browser and converter are warm", async (t) => {
  const url = testEnv.operatorUrl('workers');
  // Its browser and converter start once the backlog is served: a state to wait for, not a time.
  let answer = await health(url);
  for (let i = 0; i < 240 && answer.status !== 200; i++) {
    await sleep(500);
    answer = await health(url);
  }
  t.is(answer.status, 200, JSON.stringify(answer.body));
  t.is(answer.body.status, 'ok');
  t.deepEqual(Object.keys(answer.body.checks).sort(), ['browser', 'converter', 'polling', 'temporal']);
  t.true(Object.values(answer.body.checks).every((v) => v === 'ok'));
  // Its metrics answer on the same port (the SDK's, passed through), the public API's port has none.
  const metrics = await fetch(`${url}/metrics`);
  t.is(metrics.status, 200);
  const text = await metrics.text();
  t.regex(text, /^temporal_/m);
  // Beside them, the backlog of each queue it polls, as Temporal counts it (what KEDA scales on).
  for (const queue of ['core', 'cpu', 'cpu-long', 'network', 'browser'])
    t.regex(text, new RegExp(`^task_queue_backlog\\{task_queue="${queue}",type="workflow"\\} \\d+$`, 'm'), queue);
});

test("503 naming Temporal when it does not answer the worker's connection", async (t) => {
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: testEnv.temporalCliPath() }, log: { format: 'pretty', level: 'error' } },
  });
  // The worker's own connection, as a worker process has: the server's teardown leaves it open.
  const connection = await NativeConnection.connect({ address: env.address });
  const worker = await Worker.create({ connection, taskQueue: `health-${Date.now()}`, activities: { noop: async () => {} } });
  const running = worker.run().catch(() => {});
  const state: WorkerHealthState = { connection, workers: [{ worker, taskQueue: worker.options.taskQueue }] };
  const port = await startOperatorPort({ host: '127.0.0.1', port: await freePort(), health: () => workerHealthChecks(state), log });
  t.teardown(async () => {
    await port.close();
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
    await connection.close();
  });
  // Polling, and Temporal answers: healthy.
  for (let i = 0; i < 60 && worker.getState() !== 'RUNNING'; i++) await sleep(100);
  const healthy = await health(port.url);
  t.is(healthy.status, 200, JSON.stringify(healthy.body));

  // The server goes away; the worker process lives on and would look alive.
  await env.teardown();
  const down = await health(port.url);
  t.is(down.status, 503);
  t.is(down.body.code, 'unavailable');
  t.regex(down.body.checks.temporal, /^unreachable|^no answer/);
  t.regex(down.body.detail, /temporal: /);

  // Liveness leaves Temporal out: its outage is not mended by restarting every worker.
  const live = await fetch(`${port.url}/healthz?exclude=temporal`);
  const liveBody = (await live.json()) as UncheckedJson;
  t.is(live.status, 200, JSON.stringify(liveBody));
  t.deepEqual(Object.keys(liveBody.checks), ['polling']);
  // A misspelt exclusion is refused rather than read as "exclude nothing".
  const typo = await fetch(`${port.url}/healthz?exclude=temporl`);
  t.is(typo.status, 400);
  t.like(await typo.json(), { code: 'validation_failed' });
});

test("503 naming the browser when the pool's browser cannot start", async (t) => {
  const net = await startTestNetwork();
  const proxy = createFilteringProxy({ guard: net.guard, adHosts: loadAdHostList() });
  // Not Chromium: every launch fails, as with a browser that crashes at start.
  const pool = createBrowserPool({ executablePath: '/nonexistent/chromium', concurrency: 1, proxy });
  await pool.ready;
  const state: WorkerHealthState = { warmth: { browser: async () => pool.health() } };
  const port = await startOperatorPort({ host: '127.0.0.1', port: await freePort(), health: () => workerHealthChecks(state), log });
  t.teardown(async () => {
    await port.close();
    await pool.close();
    await net.close();
  });
  const down = await health(port.url);
  t.is(down.status, 503);
  t.regex(down.body.checks.browser, /^could not start: /);
  t.regex(down.body.detail, /browser: could not start/);
  t.is((await fetch(`${port.url}/nothing`)).status, 404);
});
