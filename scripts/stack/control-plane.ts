//! A real Kubernetes control plane on this machine, without containers or a kubelet: etcd,
//! kube-apiserver, kube-controller-manager and kube-scheduler built from `k8s.io/kubernetes`
//! (scripts/bootstrap-k8s.mjs), kwok playing the nodes (it marks their pods running and ready), and
//! KEDA's operator and metrics adapter run out of cluster against it. `npm run test:k8s` applies
//! deploy/kubernetes/ to it. Everything listens on loopback, except the adapter, which the API
//! server's aggregation layer reaches through an Endpoints object, and those may not name loopback.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitUntil } from './net.js';
import { createCa, issueLeaf } from './certificate-authority.js';
import { openssl } from './openssl.js';
import type { ManagedProcess, Supervisor } from './supervisor.js';

const exec = promisify(execFile);

/** The binaries bootstrapK8s() resolves with. */
export interface ControlPlaneTools {
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  kubeScheduler: string;
  kubectl: string;
  kwok: string;
  /** kwok's stages: what it does to the nodes and pods it manages. */
  kwokStages: string;
  kedaOperator: string;
  kedaAdapter: string;
  kedaCrds: string;
}

export interface ControlPlane {
  kubeconfig: string;
  /** Where the API server listens, the authority its certificate and its clients' come from, the admin's token. */
  apiServer: { host: string; port: number; caFile: string; token: string };
  /** Runs kubectl against the control plane; resolves with its output (stdout). */
  kubectl(args: string[], input?: string): Promise<string>;
  /** Each process, for a test to read its log or wait on it. */
  processes: Record<string, ManagedProcess>;
}

/** The Services' cluster IPs. */
export const SERVICE_CIDR = '10.96.0.0/16';

/** KEDA's own namespace: its operator keeps its objects and secrets there. */
export const KEDA_NAMESPACE = 'keda';

/** A non-loopback address of this machine (the adapter's Endpoints), or none. */
function externalAddress(): string | undefined {
  return Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
}

/** Where makePki leaves each file the parts are started with. */
type PkiFiles = ReturnType<typeof pkiFiles>;

function pkiFiles(dir: string) {
  return {
    ca: path.join(dir, 'ca', 'ca.pem'),
    frontProxyCa: path.join(dir, 'front-proxy-ca', 'ca.pem'),
    saKey: path.join(dir, 'sa.key'),
    saPub: path.join(dir, 'sa.pub'),
    pair: (name: string) => ({ cert: path.join(dir, `${name}.crt`), key: path.join(dir, `${name}.key`) }),
  };
}

/** Certificate authorities and the leaves the control plane's parts present to each other. */
async function makePki(dir: string, adapterIp: string | undefined): Promise<PkiFiles> {
  const files = pkiFiles(dir);
  const [ca, frontProxyCa] = await Promise.all([
    createCa(path.dirname(files.ca), 'control plane'),
    createCa(path.dirname(files.frontProxyCa), 'front proxy'),
  ]);
  const local = ['localhost', '127.0.0.1', ...(adapterIp ? [adapterIp] : [])];
  const leaves = {
    apiserver: issueLeaf(ca, { names: local }),
    // The aggregation layer's client: the adapter believes the user it names in its headers.
    'front-proxy-client': issueLeaf(frontProxyCa, { names: ['front-proxy-client'], usage: ['clientAuth'] }),
    keda: issueLeaf(ca, { names: [...local, `keda-operator.${KEDA_NAMESPACE}.svc`], usage: ['serverAuth', 'clientAuth'] }),
    // The API server's client to a real node's kubelet (logs, exec), which trusts this authority.
    'kubelet-client': issueLeaf(ca, { names: ['kube-apiserver-kubelet-client'], usage: ['clientAuth'] }),
  };
  for (const [name, pair] of Object.entries(leaves)) {
    const { cert, key } = await pair;
    writeFileSync(files.pair(name).cert, cert);
    writeFileSync(files.pair(name).key, key, { mode: 0o600 });
  }
  // Service account tokens: signed by the API server, checked by it.
  await openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'sa.key'], dir);
  await openssl(['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
  return files;
}

/** What the steps below share: where the run lives, how to start a part, how to reach the API server. */
interface PlaneContext {
  supervisor: Supervisor;
  dir: string;
  pki: PkiFiles;
  tools: ControlPlaneTools;
  kubeconfig: string;
  kubectl: ControlPlane['kubectl'];
  processes: Record<string, ManagedProcess>;
}

/** A kubeconfig naming the API server, its authority and the admin's static token. */
function writeKubeconfig(file: string, server: string, caFile: string, token: string): void {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'local', cluster: { server, 'certificate-authority': caFile } }],
    users: [{ name: 'admin', user: { token } }],
    contexts: [{ name: 'local', context: { cluster: 'local', user: 'admin' } }],
    'current-context': 'local',
  };
  writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
}

/** kubectl against `kubeconfig`; a failure says which command and what kubectl printed. */
function kubectlFor(binary: string, kubeconfig: string): ControlPlane['kubectl'] {
  return async (args, input) => {
    const child = exec(binary, ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 64 * 1024 * 1024 });
    if (input !== undefined) child.child.stdin?.end(input);
    try {
      return (await child).stdout;
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`kubectl ${args.join(' ')}: ${e.stderr?.trim() || e.message}`);
    }
  };
}

function startPart(ctx: PlaneContext, name: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): ManagedProcess {
  const part = ctx.supervisor.start({ name, command, args, env: { ...process.env, ...env }, layer: 0, stopTimeoutMs: 10_000 });
  ctx.processes[name] = part;
  return part;
}

/** etcd and the API server, resolved once `/readyz` is ok. */
async function startApiServer(ctx: PlaneContext, ports: { etcd: number; peer: number; api: number }): Promise<void> {
  const { dir, pki, tools } = ctx;
  const etcd = startPart(ctx, 'etcd', tools.etcd, [
    '--name=control-plane',
    `--data-dir=${path.join(dir, 'etcd')}`,
    `--listen-client-urls=http://127.0.0.1:${ports.etcd}`,
    `--advertise-client-urls=http://127.0.0.1:${ports.etcd}`,
    `--listen-peer-urls=http://127.0.0.1:${ports.peer}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${ports.peer}`,
    `--initial-cluster=control-plane=http://127.0.0.1:${ports.peer}`,
  ]);
  const apiServer = startPart(ctx, 'kube-apiserver', tools.kubeApiserver, [
    `--etcd-servers=http://127.0.0.1:${ports.etcd}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${ports.api}`,
    `--tls-cert-file=${pki.pair('apiserver').cert}`,
    `--tls-private-key-file=${pki.pair('apiserver').key}`,
    `--client-ca-file=${pki.ca}`,
    `--token-auth-file=${path.join(dir, 'tokens.csv')}`,
    '--authorization-mode=RBAC',
    `--service-cluster-ip-range=${SERVICE_CIDR}`,
    '--service-account-issuer=https://kubernetes.default.svc',
    `--service-account-key-file=${pki.saPub}`,
    `--service-account-signing-key-file=${pki.saKey}`,
    '--allow-privileged=false',
    // The aggregation layer, for KEDA's external metrics (the HPA it makes reads them).
    `--requestheader-client-ca-file=${pki.frontProxyCa}`,
    '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${pki.pair('front-proxy-client').cert}`,
    `--proxy-client-key-file=${pki.pair('front-proxy-client').key}`,
    // The aggregator dials an APIService's endpoints, not its Service's IP (kube-proxy may not run).
    '--enable-aggregator-routing=true',
    // A real node's kubelet: reached at its address, as the client its x509 authority vouches for.
    '--kubelet-preferred-address-types=InternalIP',
    `--kubelet-client-certificate=${pki.pair('kubelet-client').cert}`,
    `--kubelet-client-key=${pki.pair('kubelet-client').key}`,
  ]);
  await waitUntil(async () => (await ctx.kubectl(['get', '--raw', '/readyz'])).trim() === 'ok', {
    what: 'kube-apiserver ready',
    timeoutMs: 90_000,
    intervalMs: 500,
    processes: [etcd, apiServer],
  });
}

/** The controllers (Deployments, ReplicaSets, disruption budgets, HPAs), the scheduler, and kwok's nodes. */
function startControllers(ctx: PlaneContext, kwokPort: number): void {
  const { kubeconfig, pki, tools } = ctx;
  startPart(ctx, 'kube-controller-manager', tools.kubeControllerManager, [
    `--kubeconfig=${kubeconfig}`,
    '--leader-elect=false',
    '--secure-port=0',
    `--service-account-private-key-file=${pki.saKey}`,
    `--root-ca-file=${pki.ca}`,
    // The HPA KEDA makes acts within seconds, not the default 15 s.
    '--horizontal-pod-autoscaler-sync-period=5s',
  ]);
  startPart(ctx, 'kube-scheduler', tools.kubeScheduler, [`--kubeconfig=${kubeconfig}`, '--leader-elect=false', '--secure-port=0']);
  startPart(ctx, 'kwok', tools.kwok, [
    `--kubeconfig=${kubeconfig}`,
    `--config=${tools.kwokStages}`,
    '--node-lease-duration-seconds=40',
    '--manage-all-nodes=false',
    '--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake',
    '--cidr=10.244.0.1/16',
    '--node-ip=10.0.0.1',
    `--server-address=127.0.0.1:${kwokPort}`,
  ]);
}

/** What KEDA's processes share: its namespace's settings, its certificates, the admin's kubeconfig. */
function kedaEnv(ctx: PlaneContext): NodeJS.ProcessEnv {
  return {
    KEDA_CLUSTER_OBJECT_NAMESPACE: KEDA_NAMESPACE,
    POD_NAMESPACE: KEDA_NAMESPACE,
    OPERATOR_NAME: 'keda-operator',
    WATCH_NAMESPACE: '',
    KUBECONFIG: ctx.kubeconfig,
  };
}

/** KEDA's CRDs and namespace, then its operator (its gRPC metrics service on `ports.grpc`). */
async function startKedaOperator(ctx: PlaneContext, certs: string, ports: { metrics: number; probe: number; grpc: number }): Promise<void> {
  await ctx.kubectl(['apply', '--server-side', '-f', ctx.tools.kedaCrds]);
  // `kubectl wait` fails outright on an object with no conditions yet: ask until it shows them.
  const established = '{.status.conditions[?(@.type=="Established")].status}';
  await waitUntil(async () => (await ctx.kubectl(['get', 'crd/scaledobjects.keda.sh', '-o', `jsonpath=${established}`])) === 'True', {
    what: "KEDA's CRDs established",
    timeoutMs: 60_000,
    intervalMs: 250,
  });
  await ctx.kubectl(['create', 'namespace', KEDA_NAMESPACE]);
  mkdirSync(certs, { recursive: true });
  const keda = ctx.pki.pair('keda');
  for (const [from, to] of [
    [keda.cert, 'tls.crt'],
    [keda.key, 'tls.key'],
    [ctx.pki.ca, 'ca.crt'],
  ] as const)
    copyFileSync(from, path.join(certs, to));
  startPart(
    ctx,
    'keda-operator',
    ctx.tools.kedaOperator,
    [
      `--kubeconfig=${ctx.kubeconfig}`,
      '--leader-elect=false',
      `--metrics-bind-address=127.0.0.1:${ports.metrics}`,
      `--health-probe-bind-address=127.0.0.1:${ports.probe}`,
      `--metrics-service-bind-address=127.0.0.1:${ports.grpc}`,
      `--cert-dir=${certs}`,
      '--enable-cert-rotation=false',
    ],
    kedaEnv(ctx),
  );
}

/**
 * KEDA's metrics adapter, which the HPA KEDA makes reads the backlog through: served by the
 * aggregation layer at the address its Endpoints name (this machine's own: they may not name loopback).
 */
async function startKedaAdapter(
  ctx: PlaneContext,
  certs: string,
  ip: string,
  ports: { serve: number; metrics: number; grpc: number },
): Promise<void> {
  startPart(
    ctx,
    'keda-adapter',
    ctx.tools.kedaAdapter,
    [
      `--secure-port=${ports.serve}`,
      `--bind-address=${ip}`,
      `--cert-dir=${certs}`,
      `--tls-cert-file=${path.join(certs, 'tls.crt')}`,
      `--tls-private-key-file=${path.join(certs, 'tls.key')}`,
      `--lister-kubeconfig=${ctx.kubeconfig}`,
      `--authentication-kubeconfig=${ctx.kubeconfig}`,
      `--authorization-kubeconfig=${ctx.kubeconfig}`,
      `--metrics-service-address=127.0.0.1:${ports.grpc}`,
      `--port=${ports.metrics}`,
    ],
    kedaEnv(ctx),
  );
  const service = { name: 'keda-metrics-apiserver', namespace: KEDA_NAMESPACE };
  const items = [
    { apiVersion: 'v1', kind: 'Service', metadata: service, spec: { ports: [{ name: 'https', port: 443, targetPort: ports.serve }] } },
    {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: service,
      subsets: [{ addresses: [{ ip }], ports: [{ name: 'https', port: ports.serve }] }],
    },
    {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1beta1.external.metrics.k8s.io' },
      spec: {
        group: 'external.metrics.k8s.io',
        version: 'v1beta1',
        service: { ...service, port: 443 },
        // Its certificate is this run's own, and the aggregator reaches it on this machine.
        insecureSkipTLSVerify: true,
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    },
  ];
  await ctx.kubectl(['apply', '--server-side', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
}

/**
 * Starts the control plane in `dir` under `supervisor` and resolves once the API server is ready,
 * KEDA's CRDs are established and its operator and adapter run.
 */
export async function startControlPlane(supervisor: Supervisor, options: { dir: string; tools: ControlPlaneTools }): Promise<ControlPlane> {
  const { dir, tools } = options;
  const adapterIp = externalAddress();
  const pki = await makePki(path.join(dir, 'pki'), adapterIp);
  const [etcd, peer, api, kwok, metrics, probe, grpc, serve, adapterMetrics] = await Promise.all(
    Array.from({ length: 9 }, () => freePort()),
  );
  const token = randomBytes(24).toString('hex');
  writeFileSync(path.join(dir, 'tokens.csv'), `${token},admin,admin,system:masters\n`, { mode: 0o600 });
  const kubeconfig = path.join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfig, `https://127.0.0.1:${api}`, pki.ca, token);
  const ctx: PlaneContext = { supervisor, dir, pki, tools, kubeconfig, kubectl: kubectlFor(tools.kubectl, kubeconfig), processes: {} };
  await startApiServer(ctx, { etcd, peer, api });
  startControllers(ctx, kwok);
  const certs = path.join(dir, 'keda-certs');
  await startKedaOperator(ctx, certs, { metrics, probe, grpc });
  if (adapterIp) await startKedaAdapter(ctx, certs, adapterIp, { serve, metrics: adapterMetrics, grpc });
  return {
    kubeconfig,
    apiServer: { host: '127.0.0.1', port: api, caFile: pki.ca, token },
    kubectl: ctx.kubectl,
    processes: ctx.processes,
  };
}
