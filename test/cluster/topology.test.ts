//! The production-shaped stack is what docker-compose.yml describes, and an operator can see it:
//! both API replicas answer through the load balancer (HTTPS with HSTS, the replicas found through
//! DNS), the Temporal UI serves the server on
//! PostgreSQL, calls are searchable by AccountId and Tool (SQL visibility), every worker process
//! serves its Temporal SDK metrics and per-tool durations, and the compose file pins what ran.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from '@temporalio/client';
import { callTool, newAccount } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';
import { sample, samples } from '../../bench/prom-text.js';
import { API_MALLOC_ENV } from '../../scripts/stack/apps.js';
import { TEMPORAL_POSTGRES_SETTINGS } from '../../scripts/stack/postgres.js';
import { connectTemporal } from '../helpers/temporal.js';

// bootstrap-cluster.mjs is plain JavaScript without types: imported by URL, typed here.
const { TEMPORAL_SERVER_VERSION, TEMPORAL_UI_VERSION } = (await import(
  new URL('../../scripts/bootstrap-cluster.mjs', import.meta.url).href
)) as {
  TEMPORAL_SERVER_VERSION: string;
  TEMPORAL_UI_VERSION: string;
};

const metricsUrls = (): Record<string, string> => JSON.parse(process.env.CLUSTER_METRICS_JSON ?? '{}');
const metrics = async (part: string) => (await fetch(metricsUrls()[part]!)).text();

/** What each API replica charged and each cpu worker ran of hash-text, so far (each by its own metrics). */
async function spreadCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  // By the replicas' own counts: HAProxy's servers are slots filled from DNS, in no fixed order.
  for (const replica of ['api-1', 'api-2'])
    counts[replica] = sample(await metrics(replica), 'tool_calls_total', { tool: 'hash-text', outcome: 'charged' });
  for (const worker of ['worker-cpu-1', 'worker-cpu-2'])
    counts[worker] = sample(await metrics(worker), 'tool_duration_seconds_count', { tool: 'hash-text', outcome: 'ok' });
  return counts;
}

test('calls through the load balancer reach both API replicas and both cpu workers', async (t) => {
  const account = await newAccount(1_000);
  // Judged by what this test's own calls add, not by the run's totals (other files call too).
  // Eight at a time, so one replica or worker alone cannot take them all; rounds until each has
  // taken some, bounded only against a stack that never spreads them.
  const before = await spreadCounts();
  let added: Record<string, number> = {};
  for (let round = 0; round < 25 && !Object.keys(before).every((part) => added[part]! > 0); round++) {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => callTool(account.apiKey, 'hash-text', { text: `spread ${round}.${i}` })),
    );
    t.deepEqual(
      answers.map((a) => a.status),
      Array(8).fill(200),
    );
    const now = await spreadCounts();
    added = Object.fromEntries(Object.keys(before).map((part) => [part, now[part]! - before[part]!]));
  }
  for (const part of Object.keys(before)) t.true(added[part]! > 0, `${part} took some of this test's calls: ${JSON.stringify(added)}`);
});

test('the load balancer answers over HTTPS only, with HSTS, and finds the replicas by DNS: its configuration names none', async (t) => {
  const url = new URL(testEnv.apiUrl());
  t.is(url.protocol, 'https:');
  const res = await fetch(`${url.origin}/healthz`);
  t.is(res.status, 200);
  t.is(res.headers.get('strict-transport-security'), 'max-age=63072000; includeSubDomains');
  // Plain HTTP on the same port is a failed connection, never an answer (nor a redirect).
  await t.throwsAsync(fetch(`http://${url.host}/healthz`, { signal: AbortSignal.timeout(10_000) }));
  const config = readFileSync('deploy/haproxy/haproxy.cfg', 'utf8');
  t.deepEqual(config.match(/^\s*server\s.*$/gm), null, 'no server line: the replicas come from server-template');
  t.regex(config, /^\s*server-template api- "\$\{API_SLOTS\}" "\$\{API_SERVICE\}" resolvers discovery/m);
  // Both replicas took calls through it above (the spread test); HAProxy's own view: two slots up.
  const up = samples(await metrics('haproxy'), 'haproxy_server_status', { proxy: 'api', state: 'UP' }).filter((s) => s.value === 1);
  t.is(up.length, 2, JSON.stringify(up));
});

test("every worker process serves its task queues' schedule-to-start latency, slots and pollers; tool workers run their calls' workflow tasks", async (t) => {
  // A call of its own: the other tests' calls run alongside, maybe after these scrapes.
  const account = await newAccount(10);
  t.is((await callTool(account.apiKey, 'hash-text', { text: 'topology' })).status, 200);
  const queues = {
    'worker-core': 'core',
    'worker-cpu-1': 'cpu',
    'worker-cpu-2': 'cpu',
    'worker-network': 'network',
    'worker-browser': 'browser',
  };
  for (const [worker, queue] of Object.entries(queues)) {
    const text = await metrics(worker);
    t.true(sample(text, 'temporal_num_pollers', { task_queue: queue }) > 0, `${worker} polls ${queue}`);
    // A tool worker runs whole calls: their workflow tasks, ledger steps and tools.
    const kinds = queue === 'core' ? ['WorkflowWorker'] : ['WorkflowWorker', 'ActivityWorker', 'LocalActivityWorker'];
    for (const kind of kinds) {
      t.true(
        samples(text, 'temporal_worker_task_slots_available', { task_queue: queue, worker_type: kind }).length > 0,
        `${worker}: ${kind} slots`,
      );
    }
  }
  // A pool with queued tools also runs whole long calls from its queue of long calls.
  const longCalls = { 'worker-cpu-1': 'cpu-long', 'worker-cpu-2': 'cpu-long', 'worker-network': 'network-long' };
  for (const [worker, queue] of Object.entries(longCalls)) {
    const text = await metrics(worker);
    t.true(sample(text, 'temporal_num_pollers', { task_queue: queue }) > 0, `${worker} polls ${queue}`);
    for (const kind of ['WorkflowWorker', 'LocalActivityWorker']) {
      t.true(
        samples(text, 'temporal_worker_task_slots_available', { task_queue: queue, worker_type: kind }).length > 0,
        `${worker}: ${kind} slots on ${queue}`,
      );
    }
  }
  const cpu = (await metrics('worker-cpu-1')) + (await metrics('worker-cpu-2'));
  t.true(
    sample(cpu, 'temporal_workflow_task_schedule_to_start_latency_count', { task_queue: 'cpu' }) > 0,
    'cpu workflow task schedule-to-start recorded',
  );
});

test('a refused tool call is counted by its contract code on the worker that ran it', async (t) => {
  const account = await newAccount(100);
  const refused = async () =>
    sample(await metrics('worker-network'), 'tool_duration_seconds_count', { tool: 'http-request', outcome: 'target_not_allowed' });
  const before = await refused();
  // A name, not an address: the API refuses a literal private address itself, before any worker.
  const res = await callTool(account.apiKey, 'http-request', { url: 'http://localhost:9/' });
  t.is(res.status, 422, JSON.stringify(res.body));
  t.true((await refused()) > before, "this call counted, not only the run's others");
});

test('the API replicas label request metrics by route template; the Temporal server and HAProxy serve theirs', async (t) => {
  // Its own call: the other tests run alongside, and the load balancer picks the replica.
  const account = await newAccount(10);
  t.is((await callTool(account.apiKey, 'hash-text', { text: 'labelled' })).status, 200);
  const api = (await metrics('api-1')) + (await metrics('api-2'));
  const routes = [...api.matchAll(/^http_request_duration_seconds_count\{[^}]*route="([^"]*)"/gm)].map((m) => m[1]!);
  t.true(routes.includes('/api/v1/tools/:tool'), routes.join(', '));
  t.deepEqual(
    routes.filter((r) => /[()?\\$]/.test(r)),
    [],
  );
  t.regex(await metrics('temporal'), /^persistence_requests\{/m, 'the server reports its persistence requests');
  // Only on each replica's METRICS_PORT: through the load balancer, and on a replica's own public port, 404.
  t.is((await fetch(`${testEnv.apiUrl()}/metrics`)).status, 404);
  t.is((await fetch(`${JSON.parse(process.env.CLUSTER_API_URLS_JSON ?? '{}')['api-1']}/metrics`)).status, 404);
});

test("tool calls are searchable by AccountId and Tool in the server's SQL visibility", async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'qr-generate', { text: 'visible', size: 128 });
  t.is(res.status, 200);
  const connection = await connectTemporal();
  try {
    const client = new Client({ connection, namespace: testEnv.temporalNamespace() });
    const found: string[] = [];
    for (let i = 0; i < 20 && found.length === 0; i++) {
      for await (const w of client.workflow.list({ query: `AccountId="${account.id}" AND Tool="qr-generate"` })) found.push(w.workflowId);
      if (!found.length) await new Promise((r) => setTimeout(r, 500));
    }
    t.deepEqual(found, [res.headers.get('x-request-id')]);
  } finally {
    await connection.close();
  }
});

test("the Temporal UI serves the cluster's namespace", async (t) => {
  const ui = process.env.CLUSTER_UI_URL!;
  t.is((await fetch(ui)).status, 200);
  const namespaces = (await (await fetch(`${ui}/api/v1/namespaces`)).json()) as { namespaces: Array<{ namespaceInfo: { name: string } }> };
  t.true(namespaces.namespaces.some((n) => n.namespaceInfo.name === testEnv.temporalNamespace()));
});

test("docker-compose.yml is valid and pins what ran here: server, admin tools and UI versions, the same config files, the API's malloc settings, Temporal's PostgreSQL settings", (t) => {
  const compose = readFileSync('docker-compose.yml', 'utf8');
  t.notThrows(() =>
    execFileSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '-q'], {
      env: { ...process.env, SECRET_KEY: '0'.repeat(64) },
      stdio: 'pipe',
    }),
  );
  // The operator surfaces answer on the host itself only, Grafana after a sign-in.
  for (const port of ['8233:8080', '3000:3000', '9090:9090', '16686:16686'])
    t.true(compose.includes(`- "127.0.0.1:${port}"`), `${port} bound to 127.0.0.1`);
  t.regex(compose, /GF_AUTH_ANONYMOUS_ENABLED: "false"/);
  t.true(compose.includes(`temporalio/server:${TEMPORAL_SERVER_VERSION}`));
  t.true(compose.includes(`temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`));
  t.true(compose.includes(`temporalio/ui:${TEMPORAL_UI_VERSION}`));
  for (const file of [
    './deploy/temporal:',
    './deploy/temporal-dynamic-config.yaml:',
    './deploy/haproxy:',
    'utility-tools/setup.sh", "schema"',
    'utility-tools/setup.sh namespace',
    '--env utility-tools',
  ]) {
    t.true(compose.includes(file), `compose uses ${file}`);
  }
  for (const entry of [
    'dist/api/server.js',
    'dist/workers/core.js',
    'dist/workers/cpu.js',
    'dist/workers/network.js',
    'dist/workers/browser.js',
  ]) {
    t.true(compose.includes(entry), `compose runs ${entry}`);
  }
  for (const [name, value] of Object.entries(API_MALLOC_ENV)) {
    t.true(compose.includes(`${name}: "${value}"`), `compose's API sets ${name} as the stack does`);
  }
  for (const [name, value] of Object.entries(TEMPORAL_POSTGRES_SETTINGS)) {
    t.true(compose.includes(`"-c", "${name}=${value}"`), `compose's temporal-db sets ${name} as the stack does`);
  }
});
