//! deploy/kubernetes/ on a real node (`npm run test:k8s`, after kubernetes.test.ts): the kubelet with
//! containerd and CNI (scripts/stack/k8s-node.ts), kube-proxy and kube-router (k8s-host.ts), the role images
//! of `npm run test:images` imported, Temporal and the database outside the cluster on the node's
//! address. Every Deployment Ready through its own probes; inside each container the restricted
//! profile as the kernel sees it; Chromium's sandbox and LibreOffice's isolation kept under the
//! Localhost seccomp profile; calls through the API's Service served by pods, charged once; workers
//! made unhealthy taken out of readiness or restarted; KEDA scaling real browser pods 0 -> 2 -> 0; a
//! rolling update under calls; and the NetworkPolicies enforced.
import test from 'ava';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlPlaneTools } from '../../scripts/stack/control-plane.js';
import { PUBLIC_STAND_IN, type NodeTools } from '../../scripts/stack/k8s-node.js';
import { Supervisor } from '../../scripts/stack/supervisor.js';
import { balanceOf, callTool, newAccount, request, type Answer, type UncheckedJson } from '../helpers/api.js';
import { makeOdt, readPdf } from '../fixtures/documents.js';
import { startFileServer, type FileServer } from '../fixtures/file-server.js';
import { makeImage } from '../fixtures/images.js';
import { browserPoolUnderBacklog, browserReplicas } from './support/browser-backlog.js';
import { answerOf, callsDuring } from './support/calls-during.js';
import { getJson as getJsonOf } from './support/get-json.js';
import { policyChecks } from './support/policy-checks.js';
import { drainWhileCalling, moveOnto } from './support/drain.js';
import { NAMESPACE, applyNodeOverlay, startNodeStack, type NodeStack } from './support/real-node.js';
import { isReady, pinPool, podProcesses, podsOf as podsIn, podStatus, savePodLogs } from './support/pods.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this through \`npm run test:k8s\``);
  return value;
}
const runDir = path.join(required('K8S_RUN_DIR'), 'real-node');
const tools = JSON.parse(required('K8S_TOOLS_JSON')) as ControlPlaneTools & NodeTools;
const stackTools = JSON.parse(required('STACK_TOOLS_JSON')) as { temporal: string; secantusd: string };
const images = JSON.parse(required('K8S_IMAGES_JSON')) as string[];
const ROLES = ['api', 'worker-core', 'worker-cpu', 'worker-network', 'worker-browser'] as const;

const supervisor = new Supervisor({ logDir: path.join(runDir, 'logs') });
let stack: NodeStack;
let files: FileServer;
const kubectl = (...args: string[]) => stack.plane.kubectl(args);
const getJson = (...args: string[]) => getJsonOf(stack.plane, ...args);
const podsOf = (role: string) => podsIn(stack.plane, role);
const waitReady = (selector: string) => kubectl('-n', NAMESPACE, 'wait', '--for=condition=Ready', 'pod', '-l', selector, '--timeout=300s');
/** A tool's cost in credits, as the catalogue lists it. */
const costOf = async (tool: string) =>
  ((await request('GET', '/api/v1/tools')).body.tools as UncheckedJson[]).find((x) => x.name === tool)!.cost as number;

/** What the second line of `npm run test:k8s` says, filled in as the steps pass. */
const results: Record<string, unknown> = {};
const saveResults = () => writeFileSync(required('K8S_NODE_RESULTS'), JSON.stringify(results, null, 2));

test.before(async () => {
  stack = await startNodeStack(supervisor, { runDir, tools, stackTools });
  await stack.node.importImages(images);
  // What a call fetches waits at the node's one public address: the workers' policies refuse private ones.
  files = await startFileServer(PUBLIC_STAND_IN);
  await applyNodeOverlay(stack, ROOT, runDir, [`${PUBLIC_STAND_IN}/32`]);
  const service = await getJson('-n', NAMESPACE, 'service/api');
  process.env.API_URL = `http://${service.spec.clusterIP}:${service.spec.ports[0].port}`;
  process.env.ADMIN_TOKEN = stack.adminToken;
});

test.after.always(async () => {
  saveResults();
  try {
    if (stack) await savePodLogs(stack.plane, path.join(runDir, 'logs'));
  } finally {
    await files?.close();
    await stack?.stop();
    await supervisor.stopAll();
  }
});

test.serial("every Deployment's pods run on the real node and become Ready through their own startup and readiness probes", async (t) => {
  await kubectl('-n', NAMESPACE, 'wait', '--for=condition=Available', 'deployment', '--all', '--timeout=600s');
  // The browser pool's first pod may be on its way out (KEDA takes the pool to 0): the others, all Ready.
  await waitReady('app.kubernetes.io/component!=worker-browser');
  const pods = ((await getJson('-n', NAMESPACE, 'pods')).items as UncheckedJson[]).filter(
    (p) => p.metadata.labels['app.kubernetes.io/component'] !== 'worker-browser',
  );
  t.true(pods.length >= 5, `${pods.length} pods`);
  for (const pod of pods) {
    t.is(pod.spec.nodeName, stack.node.name, pod.metadata.name);
    t.true(isReady(pod), `${pod.metadata.name} Ready`);
    const [container] = pod.spec.containers;
    t.truthy(container.readinessProbe && container.startupProbe && container.livenessProbe, `${pod.metadata.name} has its probes`);
    t.true(pod.status.containerStatuses[0].started && pod.status.containerStatuses[0].ready);
  }
  results.podsReady = pods.filter(isReady).length;
  saveResults();
});

test.serial('inside every container: uid 1000, no new privileges, a seccomp filter, no capabilities, a read-only root', async (t) => {
  const readings: string[] = [];
  for (const role of ROLES) {
    const [pod] = await podsOf(role);
    if (!pod) {
      t.is(role, 'worker-browser', `${role} has a pod`); // the browser pool rests at 0 until it has work
      continue;
    }
    const status = await podStatus(stack.plane, pod.metadata.name, 1);
    t.regex(status.Uid ?? '', /^1000\s+1000\s+1000\s+1000$/, role);
    t.is(status.NoNewPrivs, '1', role);
    t.is(status.Seccomp, '2', role);
    for (const set of ['CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) t.is(status[set], '0000000000000000', `${role} ${set}`);
    const write = await kubectl('-n', NAMESPACE, 'exec', pod.metadata.name, '--', 'sh', '-c', 'touch /app/probe 2>&1 || true');
    t.regex(write, /Read-only file system/, role);
    readings.push(
      `${role}: Uid ${status.Uid}, NoNewPrivs ${status.NoNewPrivs}, Seccomp ${status.Seccomp}, CapEff ${status.CapEff}, / read-only`,
    );
  }
  results.readings = readings;
  saveResults();
});

/** Calls a tool through the API's Service; its answer, and whether it was charged its cost once. */
async function chargedCall(tool: string, input: unknown, cost: number): Promise<{ res: Answer; once: boolean }> {
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, tool, input);
  return { res, once: res.status === 200 && (await balanceOf(account)) === 100 - cost };
}

test.serial(
  "calls through the API's Service on every pool, served by pods, each charged once; LibreOffice offline in the cpu pod",
  async (t) => {
    const hash = await chargedCall('hash-text', { text: 'on a real node' }, await costOf('hash-text'));
    t.true(hash.once, JSON.stringify(hash.res.body));
    files.put('/probe.txt', { body: Buffer.from('served to a pod'), contentType: 'text/plain' });
    const fetched = await chargedCall('http-request', { url: `${files.origin}/probe.txt` }, await costOf('http-request'));
    t.true(fetched.once, JSON.stringify(fetched.res.body));
    // The office document names an image LibreOffice must never fetch: its namespace has no network.
    files.put('/linked.png', { body: await makeImage('png', 8, 8, 0x00ff00ff), contentType: 'image/png' });
    const odt = makeOdt(['Converted in a pod'], { linkedImageUrl: `${files.origin}/linked.png` });
    const pdf = await chargedCall('word-to-pdf', { fileUrl: files.put('/doc.odt', odt) }, await costOf('word-to-pdf'));
    t.true(pdf.once, JSON.stringify(pdf.res.body).slice(0, 300));
    t.deepEqual((await readPdf(Buffer.from(pdf.res.body.fileBase64, 'base64'))).pages, ['Converted in a pod']);
    t.is(files.hits('/doc.odt'), 1, 'the worker fetched the document');
    t.is(files.hits('/linked.png'), 0, "LibreOffice fetched nothing: the office's namespace has no network");
    results.officeOffline = files.hits('/linked.png') === 0;
    results.calls = [hash, fetched, pdf].filter((c) => c.once).length;
    saveResults();
  },
);

test.serial('a worker whose Temporal is unreachable leaves readiness and is not restarted; it comes back once Temporal does', async (t) => {
  const workers = ['worker-core', 'worker-cpu', 'worker-network'];
  const workerPods = async () => (await Promise.all(workers.map(podsOf))).flat();
  const restarts = async () =>
    Object.fromEntries((await workerPods()).map((p) => [p.metadata.name, p.status.containerStatuses[0].restartCount]));
  const before = await restarts();
  await stack.temporal.process.stop();
  try {
    for (let i = 0; i < 180; i++) {
      if ((await workerPods()).every((p) => !isReady(p))) break;
      await sleep(1000);
    }
    const pods = await workerPods();
    t.true(
      pods.every((p) => !isReady(p)),
      `every worker out of readiness: ${pods.map((p) => `${p.metadata.name} ${isReady(p)}`).join(', ')}`,
    );
    t.deepEqual(await restarts(), before, 'and none restarted: liveness leaves Temporal out');
  } finally {
    stack.temporal = await stack.restartTemporal();
  }
  await waitReady('app.kubernetes.io/component in (worker-core,worker-cpu,worker-network)');
  t.deepEqual(await restarts(), before);
});

test.serial(
  "Chromium keeps its sandbox in the browser pod: its renderers in namespaces of their own under Chromium's own seccomp filter",
  async (t) => {
    await pinPool(stack.plane, 'worker-browser', 1);
    await kubectl('-n', NAMESPACE, 'rollout', 'status', 'deployment/worker-browser', '--timeout=300s');
    const account = await newAccount(100);
    const res = await callTool(account.apiKey, 'html-to-image', { html: '<h1>sandboxed in a pod</h1>' });
    t.is(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    const [pod] = await podsOf('worker-browser');
    // The pod as the other roles were read: its app under the restricted profile and the Localhost seccomp profile.
    const app = await podStatus(stack.plane, pod.metadata.name, 1);
    t.regex(app.Uid ?? '', /^1000\s+1000\s+1000\s+1000$/);
    t.true(app.NoNewPrivs === '1' && app.Seccomp === '2' && app.CapEff === '0000000000000000' && app.CapBnd === '0000000000000000');
    const write = await kubectl('-n', NAMESPACE, 'exec', pod.metadata.name, '--', 'sh', '-c', 'touch /app/probe 2>&1 || true');
    t.regex(write, /Read-only file system/);
    (results.readings as string[] | undefined)?.push(
      `worker-browser: Uid ${app.Uid}, NoNewPrivs ${app.NoNewPrivs}, Seccomp ${app.Seccomp}, CapEff ${app.CapEff}, / read-only`,
    );
    const processes = await podProcesses(stack.plane, pod.metadata.name);
    const renderers = processes.filter((p) => p.args.includes('chromium') && p.args.includes('--type=renderer'));
    t.true(renderers.length >= 1, 'a renderer runs');
    t.false(
      processes.some((p) => p.args.includes('chromium') && p.args.includes('--no-sandbox')),
      'no process runs without the sandbox',
    );
    for (const { pid } of renderers) {
      const status = await podStatus(stack.plane, pod.metadata.name, pid);
      t.true((status.NSpid ?? '').split(/\s+/).length >= 2, `renderer ${pid} in a nested PID namespace: ${status.NSpid}`);
      t.true(Number(status.Seccomp_filters) >= 2, `renderer ${pid}: the pod's filter and Chromium's own (${status.Seccomp_filters})`);
    }
    results.sandbox = renderers.length >= 1;
    saveResults();
  },
);

test.serial('a browser pod whose Chromium keeps dying leaves readiness, then its liveness probe restarts it', async (t) => {
  const [pod] = await podsOf('worker-browser');
  const name = pod.metadata.name;
  const restartsBefore = pod.status.containerStatuses[0].restartCount;
  let sawUnready = false;
  let restarted = false;
  // Chromium is killed as often as the pool starts it again, until the probes have acted (never a wait on their pace).
  for (let i = 0; i < 600 && !restarted; i++) {
    await kubectl(
      '-n',
      NAMESPACE,
      'exec',
      name,
      '--',
      'sh',
      '-c',
      'kill -9 $(for d in /proc/[0-9]*; do grep -qa chromium-headless-shell $d/cmdline 2>/dev/null && basename $d; done) 2>/dev/null; true',
    ).catch(() => '');
    const now = (await getJson('-n', NAMESPACE, 'pod', name).catch(() => undefined)) as UncheckedJson | undefined;
    if (now) {
      sawUnready ||= !isReady(now);
      restarted = now.status.containerStatuses[0].restartCount > restartsBefore;
    }
    await sleep(500);
  }
  t.true(sawUnready, 'taken out of readiness');
  t.true(restarted, 'restarted by its liveness probe');
  await kubectl('-n', NAMESPACE, 'wait', '--for=condition=Ready', `pod/${name}`, '--timeout=300s');
});

test.serial('KEDA scales the browser pool on its real backlog with real pods: 0 -> 2 or more -> 0', async (t) => {
  await pinPool(stack.plane, 'worker-browser', undefined);
  // The local overlay scales down at once (for kwok's quick round trip); here the pods KEDA asks for
  // are given a minute to come up before the pool shrinks, as production's five minutes do.
  const window = '/spec/advanced/horizontalPodAutoscalerConfig/behavior/scaleDown/stabilizationWindowSeconds';
  const patch = JSON.stringify([{ op: 'replace', path: window, value: 60 }]);
  await kubectl('-n', NAMESPACE, 'patch', 'scaledobject/worker-browser', '--type=json', '-p', patch);
  const replicasNow = () => browserReplicas(stack.plane);
  for (let i = 0; i < 300 && (await replicasNow()) !== 0; i++) await sleep(1000);
  t.is(await replicasNow(), 0, 'at rest the pool is at 0');
  // Four replicas' worth at the pool's targetQueueSize of 4, sent at once, so the backlog KEDA reads holds them together.
  const run = await browserPoolUnderBacklog(stack.plane, stack.temporal, files, { calls: 16, cost: await costOf('website-screenshot') });
  const { table, peak, peakReady, served } = run;
  for (const status of run.accepted) t.is(status, 202);
  results.table = table;
  results.browser = [0, peak, await replicasNow()];
  results.browserReady = peakReady;
  saveResults();
  t.true(served, `every call served:\n${table.join('\n')}`);
  t.true(peak >= 2, `scaled to 2 or more:\n${table.join('\n')}`);
  t.is(await replicasNow(), 0, `and back to 0:\n${table.join('\n')}`);
  t.is(await balanceOf(run.account), 0, 'each call charged once');
  t.log(`at most ${peakReady} browser pods Ready at once`);
});

test.serial('a rolling update of a worker Deployment to a new image tag while calls flow: none fails, each charged once', async (t) => {
  const [image] = images.filter((i) => i.startsWith('utility-tools-worker-network:'));
  const next = image!.replace(/:.*$/, ':rollout');
  await stack.node.tagImage(image!, next);
  const cost = await costOf('http-request');
  files.put('/rollout.txt', { body: Buffer.from('during a rollout'), contentType: 'text/plain' });
  const account = await newAccount(10_000);
  const statuses = await callsDuring(
    async () => (await callTool(account.apiKey, 'http-request', { url: `${files.origin}/rollout.txt` })).status,
    async () => {
      await kubectl('-n', NAMESPACE, 'set', 'image', 'deployment/worker-network', `app=${next}`);
      await kubectl('-n', NAMESPACE, 'rollout', 'status', 'deployment/worker-network', '--timeout=600s');
    },
  );
  const failed = statuses.filter((s) => s !== 200).length;
  t.is(failed, 0, `answers: ${JSON.stringify(statuses)}`);
  t.is(await balanceOf(account), 10_000 - statuses.length * cost, 'each call charged once');
  const pods = await podsOf('worker-network');
  t.true(pods.every((p) => p.spec.containers[0].image === next));
  results.rollout = { calls: statuses.length, failed };
  saveResults();
});

test.serial('NetworkPolicies are enforced on the node: what the policies refuse is dropped, what they allow flows', async (t) => {
  const [image] = images.filter((i) => i.startsWith('utility-tools-api:'));
  const checks = await policyChecks(stack.plane, image!);
  let enforced = 0;
  for (const check of checks) {
    const [refused, allowed] = await Promise.all([check.refused, check.allowed]);
    // Refused by the policy engine (it rejects or drops) where the same port answers another pod.
    t.not(refused, 'open', `${check.what}: refused`);
    t.is(allowed, 'open', `${check.what}: allowed`);
    if (refused !== 'open' && allowed === 'open') enforced++;
  }
  // And everything the service needs still flows: a call through every hop (API, Temporal, the database, a worker).
  const account = await newAccount(10);
  t.is((await callTool(account.apiKey, 'hash-text', { text: 'after the policies' })).status, 200);
  results.policies = { enforced, checked: checks.length };
  saveResults();
});

test.serial('a node drained while calls flow: its pods move under their disruption budgets, none fails, each charged once', async (t) => {
  const [api, core] = ['utility-tools-api:', 'utility-tools-worker-core:'].map((prefix) => images.find((i) => i.startsWith(prefix))!);
  const second = await stack.joinNode('node-2', [api!, core!]);
  const drained = ['api', 'worker-core'];
  // Two of each, as production runs the API (and a pool that must not pause while a node drains).
  await pinPool(stack.plane, 'worker-core', 2);
  await kubectl('-n', NAMESPACE, 'rollout', 'status', 'deployment/worker-core', '--timeout=300s');
  await moveOnto(stack.plane, second.name, drained);
  for (const d of drained)
    t.deepEqual(
      (await podsOf(d)).map((p) => p.spec.nodeName),
      [second.name, second.name],
      d,
    );

  const cost = await costOf('hash-text');
  const account = await newAccount(10_000);
  const witness = await drainWhileCalling(stack.plane, {
    kubectl: tools.kubectl,
    node: second.name,
    deployments: drained,
    call: () => answerOf(callTool(account.apiKey, 'hash-text', { text: 'while a node drains' })),
  });
  const failed = witness.answers.filter((a) => a !== 200);
  t.deepEqual(failed, [], `answers: ${JSON.stringify(witness.answers)}`);
  t.is(await balanceOf(account), 10_000 - witness.answers.length * cost, 'each call charged once');
  for (const d of drained) {
    t.true(
      (await podsOf(d)).every((p) => p.spec.nodeName === stack.node.name && isReady(p)),
      `${d} back on ${stack.node.name}`,
    );
    t.true(witness.fewestReady[d]! >= 1, `${d} never without a Ready pod (fewest ${witness.fewestReady[d]})`);
  }
  // Both API pods were on the drained node: the second's eviction waited for the first's replacement.
  t.regex(witness.output, /violate the pod's disruption budget/, witness.output);
  t.regex(witness.output, new RegExp(`node/${second.name} drained`), witness.output);
  t.log(witness.output);
  results.drain = { calls: witness.answers.length, failed: failed.length, fewestReady: witness.fewestReady };
  saveResults();
  await pinPool(stack.plane, 'worker-core', undefined);
  await second.stop();
  await kubectl('delete', 'node', second.name);
});
