//! A real Kubernetes node on this machine, for `npm run test:k8s`: Debian's containerd (its CRI
//! plugin, runc) as a second instance with its own root, state and socket (Docker runs another),
//! Debian's CNI plugins giving pods a bridge of their own on a private /24, the kubelet and
//! kube-proxy (iptables) built from the control plane's own module, and kube-router's network policy
//! controller enforcing NetworkPolicies (iptables and ipset; scripts/bootstrap-k8s.mjs says why
//! not SIG Network's kube-network-policies). Nothing can be pulled:
//! the pause image is made here (scripts/k8s/pause.c) and the role images are imported from Docker.
//!
//! A node changes the host: sysctls the kubelet and kube-proxy set, iptables chains and ipsets, a
//! bridge, mounts. `stop()` removes the pods first, then puts each of those back.
//!
//! A second node joins the first on the same host (`servesHost: false`): its own containerd, kubelet
//! (its own root, ports and cgroup), bridge and pod /24. The host is one network namespace, so the
//! first node's kube-proxy and policy engine serve both, and both give the first's address as their
//! own: kube-router enforces the policies of the pods whose node has its address.
//!
//! The bridge also carries PUBLIC_STAND_IN, an address outside every private range, the one
//! "public" destination here: the workers' NetworkPolicies let pods reach only public addresses,
//! so the fixtures a call fetches listen there (and the target guard allows it by name).
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { DOCKER } from '../images/docker-engine.mjs';
import { freePort, waitUntil } from './net.js';
import type { ManagedProcess, Supervisor } from './supervisor.js';
import {
  type NodeOptions,
  PAUSE_IMAGE,
  PUBLIC_STAND_IN,
  cniConfig,
  containerdConfig,
  kubeProxyConfig,
  kubeletConfig,
} from './k8s-node-configs.js';

export { PUBLIC_STAND_IN, type NodeOptions, type NodeTools } from './k8s-node-configs.js';

const exec = promisify(execFile);

export interface RealNode {
  name: string;
  /** The node's address on the pods' bridge (what pods reach the host at). */
  address: string;
  /** `docker save` of `images` imported into the node's containerd (`k8s.io` namespace). */
  importImages(images: string[]): Promise<void>;
  /** The image `from` under the name `to`, in Docker and on the node (a new tag to roll out). */
  tagImage(from: string, to: string): Promise<void>;
  /** crictl against the node's containerd. */
  crictl(args: string[]): Promise<string>;
  processes: Record<string, ManagedProcess>;
  /** Removes the pods, stops the node and puts the host back as it was. */
  stop(): Promise<void>;
}

/** Fixed paths the kubelet and CNI create whatever their settings; removed on stop when a node made them. */
const FIXED_PATHS = ['/var/lib/kubelet', '/var/log/containers', '/var/lib/cni'];
const CONTAINER_LOG_LINKS = '/var/log/containers';
/** Sysctls the kubelet (kernel defaults it protects) and kube-proxy set; put back on stop. */
const SYSCTLS = [
  'kernel/panic',
  'kernel/panic_on_oops',
  'vm/overcommit_memory',
  'net/bridge/bridge-nf-call-iptables',
  'net/ipv4/ip_forward',
];

const run = async (command: string, args: string[], options: { input?: string } = {}) => {
  const child = exec(command, args, { maxBuffer: 64 * 2 ** 20 });
  if (options.input !== undefined) child.child.stdin?.end(options.input);
  return (await child).stdout;
};
const quietly = (p: Promise<unknown>) => p.catch(() => undefined);
const readlinkOr = (link: string) => {
  try {
    return readlinkSync(link);
  } catch {
    return '';
  }
};

/** The role images and the pause image go in through `ctr import` of `docker save`'s archive. */
async function importFromDocker(socket: string, images: string[]): Promise<void> {
  const script = 'docker="$0"; socket="$1"; shift; "$docker" save "$@" | ctr --address "$socket" --namespace k8s.io images import -';
  await run('sh', ['-c', script, DOCKER, socket, ...images]);
}

/** The pause container: a static `pause` in an image of its own, made with Docker from scripts/k8s/pause.c. */
async function makePauseImage(dir: string): Promise<void> {
  const source = path.resolve(import.meta.dirname, '../k8s/pause.c');
  const root = path.join(dir, 'pause-root');
  mkdirSync(root, { recursive: true });
  await run('gcc', ['-static', '-O2', '-o', path.join(root, 'pause'), source]);
  await run('sh', ['-c', 'tar -C "$0" -c pause | "$2" import --change \'ENTRYPOINT ["/pause"]\' - "$1"', root, PAUSE_IMAGE, DOCKER]);
}

async function readSysctls(): Promise<Record<string, string>> {
  return Object.fromEntries(
    SYSCTLS.filter((s) => existsSync(`/proc/sys/${s}`)).map((s) => [s, readFileSync(`/proc/sys/${s}`, 'utf8').trim()]),
  );
}

/** The iptables chains a node leaves: the kubelet's, kube-proxy's, kube-router's and the CNI plugins'. */
async function removeChains(kubeProxy: string): Promise<void> {
  await quietly(run(kubeProxy, ['--cleanup']));
  const ours = /^(KUBE|CNI)-/;
  for (const table of ['filter', 'nat', 'mangle']) {
    const rules = (await run('iptables', ['-t', table, '-S']).catch(() => '')).split('\n');
    // The built-in chains' jumps into ours go by position (their comments hold spaces), last first.
    const jumps = new Map<string, number[]>();
    const counts = new Map<string, number>();
    for (const line of rules) {
      const chain = /^-A (\S+) /.exec(line)?.[1];
      if (!chain) continue;
      counts.set(chain, (counts.get(chain) ?? 0) + 1);
      if (!ours.test(chain) && / -j (KUBE|CNI)-/.test(line)) jumps.set(chain, [...(jumps.get(chain) ?? []), counts.get(chain)!]);
    }
    for (const [chain, positions] of jumps)
      for (const n of positions.reverse()) await quietly(run('iptables', ['-t', table, '-D', chain, String(n)]));
    const chains = rules.map((line) => /^-N (\S+)/.exec(line)?.[1]).filter((c): c is string => !!c && ours.test(c));
    for (const chain of chains) await quietly(run('iptables', ['-t', table, '-F', chain]));
    for (const chain of chains) await quietly(run('iptables', ['-t', table, '-X', chain]));
  }
  // kube-router's address sets, once no rule refers to them (its own clean-up leaves them).
  for (const set of (await run('ipset', ['list', '-n']).catch(() => '')).split('\n').filter((n) => n.startsWith('KUBE-')))
    await quietly(run('ipset', ['destroy', set]));
}

/** Unmounts what the kubelet and containerd left mounted under `dir` (deepest first). */
async function unmountUnder(dir: string): Promise<void> {
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[1]?.replace(/\\040/g, ' '))
    .filter((m): m is string => !!m && m.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) await quietly(run('umount', ['-l', m]));
}

const CGROUPS = '/sys/fs/cgroup';
/** Where `root` is in each mounted cgroup hierarchy (one on cgroup v2, one per controller on v1). */
function cgroupDirs(root: string): string[] {
  if (existsSync(path.join(CGROUPS, 'cgroup.controllers'))) return [path.join(CGROUPS, root)];
  return readdirSync(CGROUPS)
    .filter((h) => existsSync(path.join(CGROUPS, h, 'cgroup.procs')))
    .map((h) => path.join(CGROUPS, h, root));
}

/** A cgroup root for a kubelet (it must exist beforehand); v1's cpuset needs its parent's cpus and memory nodes. */
function makeCgroupRoot(root: string): void {
  for (const dir of cgroupDirs(root)) {
    mkdirSync(dir, { recursive: true });
    for (const file of ['cpuset.cpus', 'cpuset.mems'])
      if (existsSync(path.join(dir, file)) && !readFileSync(path.join(dir, file), 'utf8').trim())
        writeFileSync(path.join(dir, file), readFileSync(path.join(path.dirname(dir), file)));
  }
}

/** The cgroups a kubelet left under its root, deepest first, once their processes are gone. */
async function removeCgroupRoot(root: string): Promise<void> {
  for (const dir of cgroupDirs(root))
    if (existsSync(dir)) await quietly(run('find', [dir, '-depth', '-type', 'd', '-exec', 'rmdir', '{}', ';']));
}

export async function startRealNode(supervisor: Supervisor, options: NodeOptions): Promise<RealNode> {
  const { dir, name, tools, bridge, servesHost } = options;
  mkdirSync(path.join(dir, 'cni', 'net.d'), { recursive: true });
  const savedSysctls = servesHost ? await readSysctls() : {};
  const madeHere = servesHost ? FIXED_PATHS.filter((p) => !existsSync(p)) : [];
  const gateway = options.podCidr.replace(/\.0\/24$/, '.1');
  const address = options.address ?? gateway;
  const socket = path.join(dir, 'containerd.sock');
  const processes: Record<string, ManagedProcess> = {};
  const start = (part: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
    (processes[part] = supervisor.start({
      name: `${name}-${part}`,
      command,
      args,
      env: { ...process.env, ...env },
      layer: 0,
      stopTimeoutMs: 20_000,
    }));
  const crictl = (args: string[]) => run(tools.crictl, ['--runtime-endpoint', `unix://${socket}`, '--timeout', '60s', ...args]);

  // What a run cut short (killed, not stopped) left behind goes first.
  await quietly(run('ip', ['link', 'del', bridge]));
  if (servesHost) {
    await quietly(run(tools.kubeRouter, ['--cleanup-config']));
    await removeChains(tools.kubeProxy);
  }
  if (options.cgroupRoot) {
    await removeCgroupRoot(options.cgroupRoot);
    makeCgroupRoot(options.cgroupRoot);
  }
  // The bridge before the kubelet: its node address must be one of the host's.
  await quietly(run('ip', ['link', 'add', bridge, 'type', 'bridge']));
  await quietly(run('ip', ['addr', 'add', `${gateway}/24`, 'dev', bridge]));
  if (servesHost) await quietly(run('ip', ['addr', 'add', `${PUBLIC_STAND_IN}/32`, 'dev', bridge]));
  await run('ip', ['link', 'set', bridge, 'up']);
  writeFileSync(path.join(dir, 'cni', 'net.d', '10-utility-tools.conflist'), cniConfig(options));
  writeFileSync(path.join(dir, 'containerd.toml'), containerdConfig(dir, socket));
  const containerd = start('containerd', 'containerd', ['--config', path.join(dir, 'containerd.toml')]);
  await waitUntil(
    async () =>
      await crictl(['info']).then(
        () => true,
        () => false,
      ),
    {
      what: 'containerd (CRI) answers',
      timeoutMs: 60_000,
      intervalMs: 250,
      processes: [containerd],
    },
  );
  if (servesHost) await makePauseImage(dir);
  await importFromDocker(socket, [PAUSE_IMAGE]);

  // Localhost seccomp profiles live in the kubelet's root.
  const kubeletRoot = path.join(dir, 'kubelet');
  for (const [profile, file] of Object.entries(options.seccompProfiles)) {
    mkdirSync(path.dirname(path.join(kubeletRoot, 'seccomp', profile)), { recursive: true });
    copyFileSync(file, path.join(kubeletRoot, 'seccomp', profile));
  }
  const [kubeletPort, kubeletHealthz, proxyHealthz, proxyMetrics] = await Promise.all(Array.from({ length: 4 }, () => freePort()));
  writeFileSync(path.join(dir, 'kubelet.json'), kubeletConfig(options, socket, { kubelet: kubeletPort, healthz: kubeletHealthz }, address));
  const kubelet = start('kubelet', tools.kubelet, [
    `--config=${path.join(dir, 'kubelet.json')}`,
    `--kubeconfig=${options.kubeconfig}`,
    `--hostname-override=${name}`,
    `--node-ip=${address}`,
    `--root-dir=${kubeletRoot}`,
    `--cert-dir=${path.join(dir, 'kubelet-pki')}`,
    '--v=1',
  ]);
  if (servesHost) {
    writeFileSync(path.join(dir, 'kube-proxy.json'), kubeProxyConfig(options, { healthz: proxyHealthz, metrics: proxyMetrics }));
    start('kube-proxy', tools.kubeProxy, [`--config=${path.join(dir, 'kube-proxy.json')}`]);
  }
  const kubectl = async (args: string[]) => run('kubectl', ['--kubeconfig', options.kubeconfig, ...args]);
  await waitUntil(
    async () =>
      (await kubectl(['get', 'node', name, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']).catch(() => '')) === 'True',
    { what: `node ${name} Ready`, timeoutMs: 120_000, intervalMs: 1000, processes: [kubelet, containerd] },
  );
  // kube-router, its network policy controller alone, on the pods of every node with this address
  // (once the node exists: it looks itself up).
  if (servesHost) {
    const router = start('kube-router', tools.kubeRouter, [
      `--kubeconfig=${options.kubeconfig}`,
      `--hostname-override=${name}`,
      '--run-firewall=true',
      '--run-router=false',
      '--run-service-proxy=false',
      '--enable-ipv6=false',
      '--metrics-port=0',
      '--health-port=0',
    ]);
    // Registered (it looks itself up by the node's name) and enforcing: its chains are in place.
    await waitUntil(async () => (await run('iptables-save', ['-t', 'filter'])).includes(':KUBE-ROUTER-FORWARD'), {
      what: 'kube-router enforcing NetworkPolicies',
      timeoutMs: 60_000,
      intervalMs: 500,
      processes: [router],
    });
  }

  let stopped = false;
  return {
    name,
    address,
    processes,
    crictl,
    importImages: (images) => importFromDocker(socket, images),
    async tagImage(from, to) {
      await run(DOCKER, ['tag', from, to]);
      await importFromDocker(socket, [to]);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      // Pods first, through the runtime (their network torn down by CNI), then the parts.
      await quietly(crictl(['stopp', ...(await crictl(['pods', '-q']).catch(() => '')).split('\n').filter(Boolean)]));
      await quietly(crictl(['rmp', '--all', '--force']));
      for (const part of ['kube-router', 'kube-proxy', 'kubelet']) await processes[part]?.stop();
      await containerd.stop();
      // A shim outlives its containerd: end those of this node.
      await quietly(run('pkill', ['-f', `containerd-shim-runc-v2 .*${path.join(dir, 'containerd')}`]));
      await sleep(500);
      await unmountUnder(dir);
      // The images and snapshots (gigabytes a run); the pods' logs stay beside them.
      rmSync(path.join(dir, 'containerd'), { recursive: true, force: true });
      if (options.cgroupRoot) await removeCgroupRoot(options.cgroupRoot);
      await quietly(run('ip', ['link', 'del', bridge]));
      // The kubelet links each container's log from a fixed folder: those links point into this node's.
      for (const link of existsSync(CONTAINER_LOG_LINKS) ? readdirSync(CONTAINER_LOG_LINKS) : []) {
        const target = readlinkOr(path.join(CONTAINER_LOG_LINKS, link));
        if (target.startsWith(`${dir}/`)) rmSync(path.join(CONTAINER_LOG_LINKS, link), { force: true });
      }
      if (!servesHost) return;
      // kube-router's chains and ipsets, then kube-proxy's and the rest.
      await quietly(run(tools.kubeRouter, ['--cleanup-config']));
      await removeChains(tools.kubeProxy);
      for (const [sysctl, value] of Object.entries(savedSysctls)) writeFileSync(`/proc/sys/${sysctl}`, value);
      for (const p of madeHere) rmSync(p, { recursive: true, force: true });
    },
  };
}
