//! The host under the real nodes of `npm run test:k8s`. Every node here runs in this one network
//! namespace, so what a node's network needs beyond its own bridge is the host's, set up once:
//! kube-proxy (iptables) routing Services, and kube-router's network policy controller enforcing
//! NetworkPolicies (iptables and ipset; scripts/bootstrap-k8s.mjs says why not SIG Network's
//! kube-network-policies). Both serve the first node; the nodes that join it give its address as
//! their own, and kube-router enforces the policies of the pods whose node has that address.
//!
//! The host changes: sysctls the kubelet and kube-proxy set, iptables chains and ipsets, fixed
//! paths. `prepareHost` notes them before any node starts (and clears what a run cut short left);
//! `restore` puts each back once the nodes have stopped.
//!
//! The served node's bridge also carries PUBLIC_STAND_IN, an address outside every private range, the
//! one "public" destination here: the workers' NetworkPolicies let pods reach only public addresses,
//! so the fixtures a call fetches listen there (and the target guard allows it by name).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DOCKER } from '../images/docker-engine.mjs';
import { quietly, run } from './host-commands.js';
import { type NodeTools, PAUSE_IMAGE, PUBLIC_STAND_IN, kubeProxyConfig } from './k8s-node-configs.js';
import { freePort, waitUntil } from './net.js';
import type { Supervisor } from './supervisor.js';

/** Fixed paths the kubelet and CNI create whatever their settings; removed on restore when a node made them. */
const FIXED_PATHS = ['/var/lib/kubelet', '/var/log/containers', '/var/lib/cni'];
/** Sysctls the kubelet (kernel defaults it protects) and kube-proxy set; put back on restore. */
const SYSCTLS = [
  'kernel/panic',
  'kernel/panic_on_oops',
  'vm/overcommit_memory',
  'net/bridge/bridge-nf-call-iptables',
  'net/ipv4/ip_forward',
];

export interface Host {
  /** For the node `name`, once Ready: the public stand-in on its bridge, kube-proxy and kube-router. */
  serve(node: { name: string; bridge: string }): Promise<void>;
  /** Stops kube-proxy and kube-router and puts the host back as it was (after the nodes have stopped). */
  restore(): Promise<void>;
}

function readSysctls(): Record<string, string> {
  return Object.fromEntries(
    SYSCTLS.filter((s) => existsSync(`/proc/sys/${s}`)).map((s) => [s, readFileSync(`/proc/sys/${s}`, 'utf8').trim()]),
  );
}

/** The iptables chains a node leaves: the kubelet's, kube-proxy's, kube-router's and the CNI plugins'. */
async function removeChains(tools: NodeTools): Promise<void> {
  await quietly(run(tools.kubeRouter, ['--cleanup-config']));
  await quietly(run(tools.kubeProxy, ['--cleanup']));
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

/** The pause container: a static `pause` in an image of its own, made with Docker from scripts/k8s/pause.c. */
async function makePauseImage(dir: string): Promise<void> {
  const source = path.resolve(import.meta.dirname, '../k8s/pause.c');
  const root = path.join(dir, 'pause-root');
  mkdirSync(root, { recursive: true });
  await run('gcc', ['-static', '-O2', '-o', path.join(root, 'pause'), source]);
  await run('sh', ['-c', 'tar -C "$0" -c pause | "$2" import --change \'ENTRYPOINT ["/pause"]\' - "$1"', root, PAUSE_IMAGE, DOCKER]);
}

export async function prepareHost(
  supervisor: Supervisor,
  options: { dir: string; tools: NodeTools; kubeconfig: string; clusterCidr: string },
): Promise<Host> {
  const { dir, tools, kubeconfig } = options;
  mkdirSync(dir, { recursive: true });
  const savedSysctls = readSysctls();
  const madeHere = FIXED_PATHS.filter((p) => !existsSync(p));
  // What a run cut short (killed, not stopped) left behind goes first.
  await removeChains(tools);
  await makePauseImage(dir);

  const start = (name: string, command: string, args: string[]) =>
    supervisor.start({ name, command, args, env: process.env, layer: 0, stopTimeoutMs: 20_000 });
  const parts: { stop(): Promise<void> }[] = [];
  return {
    async serve(node) {
      await run('ip', ['addr', 'add', `${PUBLIC_STAND_IN}/32`, 'dev', node.bridge]);
      const [healthz, metrics] = await Promise.all([freePort(), freePort()]);
      writeFileSync(path.join(dir, 'kube-proxy.json'), kubeProxyConfig({ ...options, name: node.name }, { healthz, metrics }));
      parts.push(start('kube-proxy', tools.kubeProxy, [`--config=${path.join(dir, 'kube-proxy.json')}`]));
      // kube-router, its network policy controller alone; it looks itself up by the node's name.
      const router = start('kube-router', tools.kubeRouter, [
        `--kubeconfig=${kubeconfig}`,
        `--hostname-override=${node.name}`,
        '--run-firewall=true',
        '--run-router=false',
        '--run-service-proxy=false',
        '--enable-ipv6=false',
        '--metrics-port=0',
        '--health-port=0',
      ]);
      parts.push(router);
      // Registered and enforcing: its chains are in place.
      await waitUntil(async () => (await run('iptables-save', ['-t', 'filter'])).includes(':KUBE-ROUTER-FORWARD'), {
        what: 'kube-router enforcing NetworkPolicies',
        timeoutMs: 60_000,
        intervalMs: 500,
        processes: [router],
      });
    },
    async restore() {
      for (const part of parts.splice(0).reverse()) await part.stop();
      await removeChains(tools);
      for (const [sysctl, value] of Object.entries(savedSysctls)) writeFileSync(`/proc/sys/${sysctl}`, value);
      for (const p of madeHere) rmSync(p, { recursive: true, force: true });
    },
  };
}
