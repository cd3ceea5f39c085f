//! What the real-node suite runs against: the control plane (scripts/stack/control-plane.ts), the host
//! serving Services and NetworkPolicies (scripts/stack/k8s-host.ts), a real node (scripts/stack/k8s-node.ts)
//! with the role images imported, a second that joins it when a test asks (to drain one), and what
//! production keeps outside the cluster (Temporal, the database) on the first node's address, where
//! the pods reach them.
//! The local overlay is applied with this run's addresses and a Secret made as an operator makes it.
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { SERVICE_CIDR, startControlPlane, type ControlPlane, type ControlPlaneTools } from '../../../scripts/stack/control-plane.js';
import { prepareHost } from '../../../scripts/stack/k8s-host.js';
import { startRealNode, type NodeTools, type RealNode } from '../../../scripts/stack/k8s-node.js';
import { freePort } from '../../../scripts/stack/net.js';
import { startDatabase, startTemporal, type RunningDatabase, type RunningTemporal } from '../../../scripts/stack/services.js';
import type { Supervisor } from '../../../scripts/stack/supervisor.js';
import { SECCOMP_PROFILE } from '../../../scripts/images/containers.js';

export const NAMESPACE = 'utility-tools';
/** The pods' network: a private /16 of its own, away from kwok's simulated pods (10.244.0.0/16), a /24 a node. */
const CLUSTER_CIDR = '10.250.0.0/16';
const podCidr = (n: number) => `10.250.${n}.0/24`;
/** As the manifests name the profile: `localhostProfile: utility-tools/sandboxes.json`. */
export const SECCOMP_LOCALHOST = 'utility-tools/sandboxes.json';
/** The ports production's policies name for Temporal and the database. */
const TEMPORAL_PORT = 7233;
const MONGODB_PORT = 27017;

/** A TCP relay on `host:port` to `target` (`host:port`): each connection piped through, both ways. */
async function relayTcp(host: string, port: number, target: string): Promise<{ address: string; close(): void }> {
  const [targetHost, targetPort] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const server = net.createServer((socket) => {
    const upstream = net.connect(targetPort, targetHost);
    socket.pipe(upstream).pipe(socket);
    const end = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', end);
    upstream.on('error', end);
  });
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return {
    address: `${host}:${port}`,
    close: () => {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

export interface NodeStack {
  plane: ControlPlane;
  node: RealNode;
  temporal: RunningTemporal;
  database: RunningDatabase;
  /** A second real node on this host, `images` imported: its own containerd, kubelet, bridge and cgroup. */
  joinNode(name: string, images: string[]): Promise<RealNode>;
  /** Restarts Temporal on its port and file (after a test stopped it). */
  restartTemporal(): Promise<RunningTemporal>;
  /** Stops the relay and the nodes, and puts the host back; the supervisor stops the rest. */
  stop(): Promise<void>;
  adminToken: string;
}

export async function startNodeStack(
  supervisor: Supervisor,
  options: { runDir: string; tools: ControlPlaneTools & NodeTools; stackTools: { temporal: string; secantusd: string } },
): Promise<NodeStack> {
  const { runDir, tools, stackTools } = options;
  const plane = await startControlPlane(supervisor, { dir: path.join(runDir, 'control-plane'), tools });
  const onThisHost = {
    clusterCidr: CLUSTER_CIDR,
    serviceCidr: SERVICE_CIDR,
    kubeconfig: plane.kubeconfig,
    clientCaFile: plane.apiServer.caFile,
    tools,
    seccompProfiles: { [SECCOMP_LOCALHOST]: SECCOMP_PROFILE },
  };
  const host = await prepareHost(supervisor, { ...onThisHost, dir: path.join(runDir, 'host') });
  const node = await startRealNode(supervisor, {
    ...onThisHost,
    dir: path.join(runDir, 'node'),
    name: 'node-1',
    podCidr: podCidr(0),
    bridge: 'ut-pods0',
    cgroupRoot: '/utility-tools-node-1',
  });
  await host.serve(node);
  const joined: RealNode[] = [];
  const temporalOptions = { binary: stackTools.temporal, port: await freePort(), dbFile: path.join(runDir, 'temporal', 'temporal.db') };
  // On the node's address, at the ports the NetworkPolicies allow (27017 anywhere; Temporal's 7233
  // through the overlay's policy for a Temporal outside the cluster).
  const [temporal, database] = await Promise.all([
    startTemporal(supervisor, temporalOptions),
    startDatabase(supervisor, { binary: stackTools.secantusd, host: node.address, port: MONGODB_PORT, dir: path.join(runDir, 'db') }),
  ]);
  // The dev server's own parts find each other on loopback whatever address its frontend takes (its
  // schedules' worker dials 127.0.0.1), so it stays there and the pods reach it through a relay.
  const relay = await relayTcp(node.address, TEMPORAL_PORT, temporal.address);
  const onNode = (t: RunningTemporal) => ({ ...t, address: relay.address });
  return {
    plane,
    node,
    temporal: onNode(temporal),
    database,
    restartTemporal: async () => onNode(await startTemporal(supervisor, temporalOptions)),
    async joinNode(name, images) {
      const n = joined.length + 1;
      const second = await startRealNode(supervisor, {
        ...onThisHost,
        dir: path.join(runDir, name),
        name,
        podCidr: podCidr(n),
        bridge: `ut-pods${n}`,
        address: node.address,
        cgroupRoot: `/utility-tools-${name}`,
      });
      joined.push(second);
      await second.importImages(images);
      return second;
    },
    async stop() {
      relay.close();
      for (const other of joined) await other.stop();
      await node.stop();
      await host.restore();
    },
    adminToken: `admin-${path.basename(runDir)}`.replace(/[^\w-]/g, ''),
  };
}

/** The local overlay applied with this run's settings, and the Secret made as an operator makes it. */
export async function applyNodeOverlay(stack: NodeStack, root: string, runDir: string, targets: string[]): Promise<void> {
  const manifest = await renderNodeOverlay(stack, root, runDir, targets);
  await stack.plane.kubectl(['apply', '--server-side', '--field-manager=utility-tools', '-f', '-'], manifest);
  const secrets = { SECRET_KEY: 'cd'.repeat(32), MONGODB_URL: stack.database.url, ADMIN_TOKEN: stack.adminToken };
  const literals = Object.entries(secrets).map(([key, value]) => `--from-literal=${key}=${value}`);
  await stack.plane.kubectl(['-n', NAMESPACE, 'create', 'secret', 'generic', 'utility-tools', ...literals]);
}

/** The local overlay with this run's settings merged in: where Temporal is, which fixtures a tool may reach. */
async function renderNodeOverlay(stack: NodeStack, root: string, runDir: string, targets: string[]): Promise<string> {
  const dir = path.join(runDir, 'node-overlay');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      `  - ${path.relative(dir, path.join(root, 'deploy/kubernetes/overlays/local'))}`,
      '  - temporal-outside.yaml',
      'configMapGenerator:',
      '  - name: utility-tools',
      '    behavior: merge',
      '    literals:',
      `      - TEMPORAL_ADDRESS=${stack.temporal.address}`,
      `      - TEMPORAL_NAMESPACE=${stack.temporal.namespace}`,
      // Pods share no volume and no bucket runs here: big outputs wait in the database (GridFS).
      '      - BLOB_STORE_URL=',
      `      - TARGET_ALLOWLIST=${targets.join(',')}`,
      '      - LOG_LEVEL=info',
      '',
    ].join('\n'),
  );
  // Temporal runs outside the cluster here, at the node's address: its pods may reach it there, as an
  // operator whose Temporal is not in the `temporal` namespace allows it (docs/OPERATING.md).
  writeFileSync(
    path.join(dir, 'temporal-outside.yaml'),
    JSON.stringify({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'utility-tools-temporal-outside', namespace: NAMESPACE },
      spec: {
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'utility-tools' } },
        policyTypes: ['Egress'],
        egress: [{ to: [{ ipBlock: { cidr: `${stack.node.address}/32` } }], ports: [{ port: TEMPORAL_PORT, protocol: 'TCP' }] }],
      },
    }),
  );
  return stack.plane.kubectl(['kustomize', dir]);
}
