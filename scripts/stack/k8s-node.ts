//! A real Kubernetes node on this machine, for `npm run test:k8s`: Debian's containerd (its CRI
//! plugin, runc) as an instance of its own with its own root, state and socket (Docker runs another),
//! Debian's CNI plugins giving pods a bridge of their own on a private /24, and the kubelet built from
//! the control plane's own module, with its own root, ports and cgroup root. Nothing can be pulled: the pause image (made by scripts/stack/k8s-host.ts) and the role
//! images are imported from Docker. What the nodes share, Services and NetworkPolicies, is the
//! host's (k8s-host.ts): a node here is not its own network namespace.
//!
//! `stop()` stops the kubelet, removes the pods, then the node's mounts, cgroups, bridge and log links.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DOCKER } from '../images/docker-engine.mjs';
import { quietly, run } from './host-commands.js';
import { freePort, waitUntil } from './net.js';
import type { Supervisor } from './supervisor.js';
import { type NodeOptions, PAUSE_IMAGE, cniConfig, containerdConfig, kubeletConfig } from './k8s-node-configs.js';

export { PUBLIC_STAND_IN, type NodeOptions, type NodeTools } from './k8s-node-configs.js';

export interface RealNode {
  name: string;
  /** The bridge its pods are on. */
  bridge: string;
  /** The node's address on the pods' bridge (what pods reach the host at). */
  address: string;
  /** `docker save` of `images` imported into the node's containerd (`k8s.io` namespace). */
  importImages(images: string[]): Promise<void>;
  /** The image `from` under the name `to`, in Docker and on the node (a new tag to roll out). */
  tagImage(from: string, to: string): Promise<void>;
  /** crictl against the node's containerd. */
  crictl(args: string[]): Promise<string>;
  /** Removes the pods, stops the node and puts the host back as it was. */
  stop(): Promise<void>;
}

const CONTAINER_LOG_LINKS = '/var/log/containers';
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

/** The processes still under a node's cgroup root: a container outlives its shim. */
function processesUnder(root: string): number[] {
  const pids = new Set<number>();
  const walk = (dir: string) => {
    for (const pid of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) pids.add(Number(pid));
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) walk(path.join(dir, entry.name));
  };
  for (const dir of cgroupDirs(root)) if (existsSync(dir)) walk(dir);
  return [...pids];
}

const killQuietly = (pid: number) => {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
};

/** The cgroups a kubelet left under its root, deepest first, once their processes are gone. */
async function removeCgroupRoot(root: string): Promise<void> {
  for (const dir of cgroupDirs(root))
    if (existsSync(dir)) await quietly(run('find', [dir, '-depth', '-type', 'd', '-exec', 'rmdir', '{}', ';']));
}

/**
 * The pods' bridge, up, with the gateway's address. Its MAC is pinned: a bridge otherwise takes its
 * lowest port's, so a pod leaving can change the gateway's MAC under every other pod on it, and they
 * lose the host (Temporal, the database) until their ARP entries expire, about 30 s.
 */
export async function makeBridge(bridge: string, gatewayCidr: string): Promise<void> {
  await quietly(run('ip', ['link', 'add', bridge, 'type', 'bridge']));
  await run('ip', ['link', 'set', bridge, 'address', readFileSync(`/sys/class/net/${bridge}/address`, 'utf8').trim()]);
  await quietly(run('ip', ['addr', 'add', gatewayCidr, 'dev', bridge]));
  await run('ip', ['link', 'set', bridge, 'up']);
}

export async function startRealNode(supervisor: Supervisor, options: NodeOptions): Promise<RealNode> {
  const { dir, name, tools, bridge } = options;
  mkdirSync(path.join(dir, 'cni', 'net.d'), { recursive: true });
  const gateway = options.podCidr.replace(/\.0\/24$/, '.1');
  const address = options.address ?? gateway;
  const socket = path.join(dir, 'containerd.sock');
  const start = (part: string, command: string, args: string[]) =>
    supervisor.start({ name: `${name}-${part}`, command, args, env: process.env, layer: 0, stopTimeoutMs: 20_000 });
  const crictl = (args: string[]) => run(tools.crictl, ['--runtime-endpoint', `unix://${socket}`, '--timeout', '60s', ...args]);

  // What a run cut short (killed, not stopped) left behind goes first.
  await quietly(run('ip', ['link', 'del', bridge]));
  await removeCgroupRoot(options.cgroupRoot);
  makeCgroupRoot(options.cgroupRoot);
  // The bridge before the kubelet: its node address must be one of the host's.
  await makeBridge(bridge, `${gateway}/24`);
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
  await importFromDocker(socket, [PAUSE_IMAGE]);

  // Localhost seccomp profiles live in the kubelet's root.
  const kubeletRoot = path.join(dir, 'kubelet');
  for (const [profile, file] of Object.entries(options.seccompProfiles)) {
    mkdirSync(path.dirname(path.join(kubeletRoot, 'seccomp', profile)), { recursive: true });
    copyFileSync(file, path.join(kubeletRoot, 'seccomp', profile));
  }
  const [kubeletPort, kubeletHealthz] = await Promise.all([freePort(), freePort()]);
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
  const kubectl = async (args: string[]) => run('kubectl', ['--kubeconfig', options.kubeconfig, ...args]);
  await waitUntil(
    async () =>
      (await kubectl(['get', 'node', name, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']).catch(() => '')) === 'True',
    { what: `node ${name} Ready`, timeoutMs: 120_000, intervalMs: 1000, processes: [kubelet, containerd] },
  );

  let stopped = false;
  return {
    name,
    bridge,
    address,
    crictl,
    importImages: (images) => importFromDocker(socket, images),
    async tagImage(from, to) {
      await run(DOCKER, ['tag', from, to]);
      await importFromDocker(socket, [to]);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      // The kubelet first, or it starts again the pods removed under it; then the pods, through the
      // runtime (their network torn down by CNI), then the runtime.
      await kubelet.stop();
      await quietly(crictl(['stopp', ...(await crictl(['pods', '-q']).catch(() => '')).split('\n').filter(Boolean)]));
      await quietly(crictl(['rmp', '--all', '--force']));
      await containerd.stop();
      // A shim outlives its containerd: end those of this node.
      await quietly(run('pkill', ['-f', `containerd-shim-runc-v2 .*${path.join(dir, 'containerd')}`]));
      await sleep(500);
      const left = processesUnder(options.cgroupRoot);
      if (left.length) {
        console.warn(`${name}: ending ${left.length} processes its runtime left (pids ${left.join(' ')})`);
        for (const pid of left) killQuietly(pid);
        await sleep(500);
      }
      await unmountUnder(dir);
      // The images and snapshots (gigabytes a run); the pods' logs stay beside them.
      rmSync(path.join(dir, 'containerd'), { recursive: true, force: true });
      await removeCgroupRoot(options.cgroupRoot);
      await quietly(run('ip', ['link', 'del', bridge]));
      // The kubelet links each container's log from a fixed folder: those links point into this node's.
      for (const link of existsSync(CONTAINER_LOG_LINKS) ? readdirSync(CONTAINER_LOG_LINKS) : []) {
        const target = readlinkOr(path.join(CONTAINER_LOG_LINKS, link));
        if (target.startsWith(`${dir}/`)) rmSync(path.join(CONTAINER_LOG_LINKS, link), { force: true });
      }
    },
  };
}
