//! deploy/kubernetes/ on a real control plane (`npm run test:k8s`, scripts/test-k8s.mjs): every
//! object of the local overlay server-side applied to kube-apiserver with KEDA's CRDs and Pod
//! Security's `restricted` profile enforced, the production overlay accepted too; on kwok's
//! simulated nodes every Deployment becomes Available, a PodDisruptionBudget refuses the eviction
//! it must, every role has its NetworkPolicy; and KEDA's operator, out of cluster against the
//! project's Temporal dev server, scales the browser pool from 0 while browser calls wait in its
//! queue and back to 0 once they are served. kwok runs no containers, so this test plays the
//! kubelet for the browser pool: it runs one real browser worker process per replica KEDA asks for,
//! and those serve the calls (through the real API, charged as always).
import test from 'ava';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { startNode, localBlobStore, throwawayEnv, type AppOptions } from '../../scripts/stack/apps.js';
import { startControlPlane, type ControlPlane, type ControlPlaneTools } from '../../scripts/stack/control-plane.js';
import { freePort, waitForHttp } from '../../scripts/stack/net.js';
import { startDatabase, startTemporal } from '../../scripts/stack/services.js';
import { Supervisor, type ManagedProcess } from '../../scripts/stack/supervisor.js';
import { callTool, newAccount, request, type UncheckedJson } from '../helpers/api.js';
import { browserBacklog, browserReplicas as browserReplicasOf } from './support/browser-backlog.js';
import { getJson as getJsonOf } from './support/get-json.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NAMESPACE = 'utility-tools';
const ROLES = ['api', 'worker-core', 'worker-cpu', 'worker-network', 'worker-browser'];
/** Browser calls left waiting for the pool: two replicas' worth at its targetQueueSize of 4. */
const WAITING_CALLS = 8;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this through \`npm run test:k8s\``);
  return value;
}
const runDir = required('K8S_RUN_DIR');
const tools = JSON.parse(required('K8S_TOOLS_JSON')) as ControlPlaneTools;
const stackTools = JSON.parse(required('STACK_TOOLS_JSON')) as { temporal: string; secantusd: string };

const supervisor = new Supervisor({ logDir: path.join(runDir, 'logs') });
let plane: ControlPlane;
let apps: AppOptions;
let temporal: { address: string; namespace: string };
/** What the last line of `npm run test:k8s` says, filled in as the steps pass. */
const results: { objects?: number; deployments?: number; available?: number; browser?: number[]; table?: string[] } = {};
const saveResults = () => writeFileSync(required('K8S_RESULTS'), JSON.stringify(results, null, 2));

const kubectl = (...args: string[]) => plane.kubectl(args);
const getJson = (...args: string[]) => getJsonOf(plane, ...args);
const browserReplicas = () => browserReplicasOf(plane);

test.before(async () => {
  const [controlPlane, runningTemporal, database] = await Promise.all([
    startControlPlane(supervisor, { dir: path.join(runDir, 'control-plane'), tools }),
    startTemporal(supervisor, { binary: stackTools.temporal, port: await freePort() }),
    startDatabase(supervisor, { binary: stackTools.secantusd, port: await freePort(), dir: path.join(runDir, 'db') }),
  ]);
  plane = controlPlane;
  temporal = runningTemporal;
  // The service the browser pool's calls come through: the API and the core pool, as processes.
  const { env, adminToken } = throwawayEnv(runningTemporal, database, { ...localBlobStore(path.join(runDir, 'blobs')), LOG_LEVEL: 'warn' });
  apps = { root: ROOT, env, apiPort: await freePort(), metricsPorts: {} };
  for (const name of ['api', 'worker-core', 'worker-browser-1', 'worker-browser-2', 'worker-browser-3'])
    apps.metricsPorts![name] = await freePort();
  const api = startNode(supervisor, apps, 'api', 'api/server.ts');
  const core = startNode(supervisor, apps, 'worker-core', 'workers/core.ts');
  process.env.API_URL = `http://127.0.0.1:${apps.apiPort}`;
  process.env.ADMIN_TOKEN = adminToken;
  await waitForHttp(`${process.env.API_URL}/readyz`, { what: 'the API', timeoutMs: 120_000, processes: [api, core] });
});

test.after.always(async () => {
  await supervisor.stopAll();
});

/** The local overlay, pointed at this run's Temporal (KEDA reads the address from the pods' settings). */
async function renderLocalOverlay(): Promise<string> {
  const dir = path.join(runDir, 'overlay');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      `  - ${path.relative(dir, path.join(ROOT, 'deploy/kubernetes/overlays/local'))}`,
      'configMapGenerator:',
      '  - name: utility-tools',
      '    behavior: merge',
      '    literals:',
      `      - TEMPORAL_ADDRESS=${temporal.address}`,
      `      - TEMPORAL_NAMESPACE=${temporal.namespace}`,
      '',
    ].join('\n'),
  );
  return kubectl('kustomize', dir);
}

/** Applied server-side, every warning (Pod Security's among them) an error. */
const apply = (manifest: string, ...flags: string[]) =>
  plane.kubectl(['apply', '--server-side', '--field-manager=utility-tools', '--warnings-as-errors', ...flags, '-f', '-'], manifest);

const documents = (manifest: string) => manifest.split(/^---$/m).filter((d) => /^kind:/m.test(d));

test('every object of the overlays is accepted by the API server: schemas, KEDA CRDs, Pod Security admission', async (t) => {
  const local = await renderLocalOverlay();
  const kinds = documents(local).map((d) => /^kind: (\S+)/m.exec(d)![1]);
  for (const kind of [
    'Namespace',
    'Deployment',
    'PodDisruptionBudget',
    'ScaledObject',
    'HorizontalPodAutoscaler',
    'NetworkPolicy',
    'Service',
  ])
    t.true(kinds.includes(kind), `the overlay holds a ${kind}`);
  const out = await apply(local);
  const applied = out.split('\n').filter((line) => / serverside-applied$/.test(line));
  t.is(applied.length, kinds.length, out);
  results.objects = applied.length;
  // The Secret the pods read, made as an operator makes it: values never in a manifest.
  await kubectl(
    '-n',
    NAMESPACE,
    'create',
    'secret',
    'generic',
    'utility-tools',
    `--from-literal=SECRET_KEY=${'ab'.repeat(32)}`,
    `--from-literal=MONGODB_URL=${apps.env.MONGODB_URL}`,
  );
  // Production's overlay (its images, its Ingress) through the same checks, without changing anything.
  const production = await kubectl('kustomize', path.join(ROOT, 'deploy/kubernetes/overlays/production'));
  const dry = await apply(production, '--dry-run=server');
  t.is(dry.split('\n').filter((line) => /serverside-applied \(server dry run\)$/.test(line)).length, documents(production).length, dry);
  // The API server refuses what Pod Security forbids: the namespace really enforces it.
  const privileged = await apply(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'runs-as-root', namespace: NAMESPACE },
      spec: { containers: [{ name: 'app', image: 'utility-tools-api:local', securityContext: { runAsUser: 0 } }] },
    }),
  ).catch((err: Error) => err.message);
  t.regex(privileged, /violates PodSecurity "restricted:latest"/);
  saveResults();
});

/** Simulated nodes, in two zones, that kwok keeps Ready and whose pods it runs. */
async function addNodes(): Promise<void> {
  const nodes = ['a-1', 'a-2', 'b-1'].map((name) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: `kwok-${name}`,
      annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: {
        'kubernetes.io/hostname': `kwok-${name}`,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'topology.kubernetes.io/zone': `zone-${name[0]}`,
        type: 'kwok',
      },
    },
    status: {
      allocatable: { cpu: '16', memory: '64Gi', pods: '110' },
      capacity: { cpu: '16', memory: '64Gi', pods: '110' },
    },
  }));
  await plane.kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: nodes }));
}

test("on kwok nodes every Deployment becomes Available, the API's replicas on two nodes, every pod restricted", async (t) => {
  await addNodes();
  await kubectl('-n', NAMESPACE, 'wait', '--for=condition=Available', 'deployment', '--all', '--timeout=180s');
  const deployments = (await getJson('-n', NAMESPACE, 'deployments')).items as UncheckedJson[];
  t.deepEqual(deployments.map((d) => d.metadata.name).sort(), [...ROLES].sort());
  const available = deployments.filter((d) =>
    d.status.conditions?.some((c: UncheckedJson) => c.type === 'Available' && c.status === 'True'),
  );
  results.deployments = deployments.length;
  results.available = available.length;
  t.is(available.length, deployments.length);
  // The API's two replicas on two hosts (its spread is DoNotSchedule by host), as the scheduler placed them.
  const apiPods = (await getJson('-n', NAMESPACE, 'pods', '-l', 'app.kubernetes.io/component=api')).items as UncheckedJson[];
  t.is(apiPods.length, 2);
  t.is(new Set(apiPods.map((p) => p.spec.nodeName)).size, 2);
  // Every pod admitted runs as the restricted profile asks.
  const pods = (await getJson('-n', NAMESPACE, 'pods')).items as UncheckedJson[];
  for (const pod of pods) {
    t.true(pod.spec.securityContext.runAsNonRoot, pod.metadata.name);
    t.is(pod.spec.automountServiceAccountToken, false);
    for (const c of pod.spec.containers) t.true(c.securityContext.readOnlyRootFilesystem && !c.securityContext.allowPrivilegeEscalation);
  }
  saveResults();
});

/** Asks for a pod's eviction, as `kubectl drain` does; resolves with the API server's answer. */
async function evict(pod: string): Promise<string> {
  const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: NAMESPACE } };
  return plane
    .kubectl(['create', '--raw', `/api/v1/namespaces/${NAMESPACE}/pods/${pod}/eviction`, '-f', '-'], JSON.stringify(eviction))
    .then(
      () => 'evicted',
      (err: Error) => err.message,
    );
}

test("the API's PodDisruptionBudget lets a drain take one replica and refuses the last", async (t) => {
  const nodes = ((await getJson('nodes')).items as UncheckedJson[]).map((n) => n.metadata.name as string);
  // Cordoned, as a drain does first: the evicted pod's replacement cannot start elsewhere meanwhile.
  for (const node of nodes) await kubectl('cordon', node);
  try {
    const pods = ((await getJson('-n', NAMESPACE, 'pods', '-l', 'app.kubernetes.io/component=api')).items as UncheckedJson[]).map(
      (p) => p.metadata.name as string,
    );
    t.is(await evict(pods[0]!), 'evicted');
    t.regex(await evict(pods[1]!), /Cannot evict pod as it would violate the pod's disruption budget/);
  } finally {
    for (const node of nodes) await kubectl('uncordon', node);
  }
  await kubectl('-n', NAMESPACE, 'rollout', 'status', 'deployment/api', '--timeout=120s');
});

test('every role has its own NetworkPolicy; only the API admits traffic from outside', async (t) => {
  const policies = (await getJson('-n', NAMESPACE, 'networkpolicies')).items as UncheckedJson[];
  const selects = (policy: UncheckedJson, role: string) =>
    Object.entries(policy.spec.podSelector.matchLabels ?? {}).every(
      ([k, v]) => ({ 'app.kubernetes.io/name': 'utility-tools', 'app.kubernetes.io/component': role })[k] === v,
    );
  for (const role of ROLES) {
    const own = policies.filter((p) => p.spec.podSelector.matchLabels?.['app.kubernetes.io/component'] === role);
    t.is(own.length, 1, `${role} has a policy of its own`);
    // Ingress from anywhere (a rule without `from`) is the API's alone.
    const openIngress = policies.filter((p) => selects(p, role) && (p.spec.ingress ?? []).some((rule: UncheckedJson) => !rule.from));
    t.is(openIngress.length, role === 'api' ? 1 : 0, role);
  }
  // Everything else is refused unless allowed: a default deny selects every pod of the service.
  t.true(
    policies.some(
      (p) =>
        p.spec.podSelector.matchLabels?.['app.kubernetes.io/component'] === undefined &&
        p.spec.policyTypes.length === 2 &&
        !p.spec.ingress &&
        !p.spec.egress,
    ),
  );
});

/** Whether the browser pool's ScaledObject has condition `type` (Ready, Active) true now. */
const scaledObjectIs = async (type: 'Ready' | 'Active') =>
  ((await getJson('-n', NAMESPACE, 'scaledobject/worker-browser')).status?.conditions ?? []).some(
    (c: UncheckedJson) => c.type === type && c.status === 'True',
  );
const scaledObjectActive = () => scaledObjectIs('Active');

test('KEDA scales the browser pool on its Temporal backlog: from 0 while calls wait, back to 0 once served', async (t) => {
  for (let i = 0; i < 120 && !((await scaledObjectIs('Ready')) && (await browserReplicas()) === 0); i++) await sleep(1000);
  const before = await browserReplicas();
  t.is(before, 0, 'at rest, with nothing waiting, KEDA holds the pool at 0');

  const connection = await Connection.connect({ address: temporal.address });
  t.teardown(() => connection.close());
  const account = await newAccount(WAITING_CALLS * 25);
  const posted = Date.now();
  const calls: string[] = [];
  for (let i = 0; i < WAITING_CALLS; i++) {
    const res = await callTool(
      account.apiKey,
      'html-to-image',
      { html: `<h1>card ${i}</h1>`, width: 400, height: 200 },
      { prefer: 'respond-async' },
    );
    t.is(res.status, 202, JSON.stringify(res.body));
    calls.push(res.body.requestId);
  }

  // Play the kubelet: one browser worker process per replica KEDA (and its HPA) ask for.
  const workers: ManagedProcess[] = [];
  const table = ['| s | backlog | ScaledObject active | replicas | worker processes |', '|---|---|---|---|---|'];
  const seen: number[] = [before];
  const began = Date.now();
  let allEnded = false;
  let peak = 0;
  while (Date.now() - began < 240_000) {
    const [backlog, active, replicas] = await Promise.all([
      browserBacklog(connection, temporal.namespace),
      scaledObjectActive(),
      browserReplicas(),
    ]);
    while (workers.length < Math.min(replicas, 3))
      workers.push(startNode(supervisor, apps, `worker-browser-${workers.length + 1}`, 'workers/browser.ts'));
    while (workers.length > replicas) await workers.pop()!.stop();
    peak = Math.max(peak, replicas);
    if (seen.at(-1) !== replicas) seen.push(replicas);
    table.push(`| ${((Date.now() - began) / 1000).toFixed(0)} | ${backlog} | ${active ? 'yes' : 'no'} | ${replicas} | ${workers.length} |`);
    if (!allEnded) {
      const states = await Promise.all(
        calls.map(async (id) => (await request('GET', `/api/v1/calls/${encodeURIComponent(id)}`, { token: account.apiKey })).body.status),
      );
      allEnded = states.every((s) => s !== 'running');
      if (allEnded)
        t.deepEqual(
          states,
          calls.map(() => 'succeeded'),
          'every waiting call served once a replica polled',
        );
    }
    if (allEnded && replicas === 0 && peak > 0) break;
    await sleep(1000);
  }
  results.table = table;
  results.browser = [before, peak, await browserReplicas()];
  saveResults();
  t.true(allEnded, table.join('\n'));
  t.true(peak >= 1, `KEDA scaled the pool up from 0:\n${table.join('\n')}`);
  t.is(results.browser[2], 0, `and back to 0 once the backlog was served:\n${table.join('\n')}`);
  // KEDA's own record that the trigger was active after the calls were posted (a row a second may miss a short spell).
  const lastActive = (await getJson('-n', NAMESPACE, 'scaledobject/worker-browser')).status?.lastActiveTime;
  t.true(Date.parse(lastActive) >= Math.floor(posted / 1000) * 1000, `lastActiveTime ${lastActive}`);
  t.false(await scaledObjectActive());
});
