#!/usr/bin/env node
//! Installs the real Kubernetes control plane `npm run test:k8s` runs on this machine, without
//! containers: etcd from Debian; kube-apiserver, kube-controller-manager, kube-scheduler and kubectl
//! built from `k8s.io/kubernetes`, kwok (simulated nodes and pods) and KEDA's operator, metrics
//! adapter and CRDs from their Go modules, all through the Go module proxy at pinned versions, into
//! `.tools/` (the Go caches stay under $HOME, so a rebuild mostly links). Idempotent: prints a line
//! per install, nothing when all is present. Each build takes both cores for minutes: one at a time.
//!
//! CLI: `node scripts/bootstrap-k8s.mjs`. Library: `await bootstrapK8s({ root })`.
import { cpSync, chmodSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { aptInstall, missingAptPackages, withInstallLock } from './bootstrap.mjs';
import { run } from './command.mjs';
import { GO_ENV, ensureGoBuilt, moduleDir } from './go-build.mjs';

/** The Kubernetes release the control plane is built from; its staging modules are v0.<minor>.<patch>. */
export const KUBERNETES_VERSION = '1.34.2';
export const KWOK_VERSION = '0.8.0';
export const KEDA_VERSION = '2.21.0';
/** crictl, the CRI's own client (cri-tools is not in Debian 12). */
export const CRI_TOOLS_VERSION = '1.34.0';
/**
 * The node's NetworkPolicy engine: kube-router's network policy controller alone (iptables and
 * ipset). SIG Network's kube-network-policies (v0.8.0 served) would be the first choice, but it
 * queues packets with nftables' `queue` expression, which this machine's kernel does not have (its
 * rules are refused: "No such file or directory"). The flaw reported against kube-router v2.1.0 is
 * IPv6 policies left unenforced (its ipset names did not match, fixed in v2.1.2); the node's pods are
 * IPv4 only, and nothing of kube-router runs but its firewall (no routing, no service proxy).
 */
export const KUBE_ROUTER_VERSION = '2.1.0';
/**
 * From Debian: etcd for the control plane; for the node, containerd with runc (the CRI runtime),
 * the CNI plugins, what kube-proxy's iptables mode runs (conntrack, iptables), and ipset (kube-router's policies).
 */
const NODE_PACKAGES = ['etcd-server', 'containerd', 'runc', 'containernetworking-plugins', 'conntrack', 'iptables', 'ipset'];
/** The control plane, the node (kubelet, kube-proxy) and kubectl, from the one module. */
const KUBERNETES_COMMANDS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubectl', 'kubelet', 'kube-proxy'];

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/**
 * The Kubernetes commands. `k8s.io/kubernetes` is not meant to be required as a module: its go.mod
 * points each staging module (`k8s.io/api`, `k8s.io/client-go` ...) at `./staging`, so a module
 * that builds its commands repeats those replaces with the published versions.
 */
async function buildKubernetes(staging) {
  const source = await moduleDir('k8s.io/kubernetes', KUBERNETES_VERSION);
  const ownMod = readFileSync(path.join(source, 'go.mod'), 'utf8');
  const block = /^replace \(\n([\s\S]*?)^\)/m.exec(ownMod)?.[1] ?? '';
  const stagingModules = block
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0])
    .filter((m) => m?.startsWith('k8s.io/'));
  if (stagingModules.length < 20)
    throw new Error(`k8s.io/kubernetes v${KUBERNETES_VERSION}: its go.mod's replace block was not understood`);
  const [, minor, patch] = KUBERNETES_VERSION.split('.');
  const work = path.join(staging, 'module');
  mkdirSync(work);
  writeFileSync(
    path.join(work, 'go.mod'),
    [
      'module utility-tools/kubernetes-tools',
      '',
      `go ${/^go (\S+)/m.exec(ownMod)?.[1] ?? '1.24.0'}`,
      '',
      `require k8s.io/kubernetes v${KUBERNETES_VERSION}`,
      '',
      'replace (',
      ...stagingModules.map((m) => `\t${m} => ${m} v0.${minor}.${patch}`),
      ')',
      '',
    ].join('\n'),
  );
  const commands = KUBERNETES_COMMANDS;
  writeFileSync(
    path.join(work, 'tools.go'),
    `//go:build tools\n\npackage tools\n\nimport (\n${commands.map((c) => `\t_ "k8s.io/kubernetes/cmd/${c}"`).join('\n')}\n)\n`,
  );
  await run('go', ['mod', 'tidy'], { cwd: work, env: GO_ENV });
  // A module build carries no version stamp: without one the node reports v0.0.0-master.
  const stamp = ['gitVersion=v' + KUBERNETES_VERSION, `gitMajor=${KUBERNETES_VERSION.split('.')[0]}`, `gitMinor=${minor}`]
    .map((setting) => `-X k8s.io/component-base/version.${setting}`)
    .join(' ');
  await run('go', ['build', '-ldflags', stamp, '-o', `${staging}/`, ...commands.map((c) => `k8s.io/kubernetes/cmd/${c}`)], {
    cwd: work,
    env: GO_ENV,
  });
  rmSync(work, { recursive: true, force: true });
}

/** KEDA's operator and metrics adapter, built in a writable copy of its module (its go.mod has a replace), and its CRDs. */
async function buildKeda(staging) {
  const source = await moduleDir('github.com/kedacore/keda/v2', KEDA_VERSION);
  const work = path.join(staging, 'module');
  cpSync(source, work, { recursive: true });
  chmodAll(work);
  await run('go', ['build', '-o', `${staging}/`, './cmd/operator', './cmd/adapter'], { cwd: work, env: GO_ENV });
  cpSync(path.join(work, 'config', 'crd', 'bases'), path.join(staging, 'crds'), { recursive: true });
  rmSync(work, { recursive: true, force: true });
}

/** The module cache's files are read-only; a copy to build in must be writable (and removable). */
function chmodAll(dir) {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) chmodAll(full);
    else chmodSync(full, 0o644);
  }
}

/**
 * Installs whatever the control plane lacks; resolves with the paths it runs.
 * @param {{ root?: string, log?: (line: string) => void }} [options]
 */
export async function bootstrapK8s({ root = ROOT, log = (line) => console.log(`bootstrap: ${line}`) } = {}) {
  return withInstallLock(root, log, async () => {
    const apt = await missingAptPackages(NODE_PACKAGES);
    if (apt.length) await aptInstall(apt, log);
    const kubernetes = await ensureGoBuilt(
      root,
      `kubernetes/v${KUBERNETES_VERSION}`,
      KUBERNETES_COMMANDS,
      `Kubernetes v${KUBERNETES_VERSION}'s control plane, node and kubectl`,
      buildKubernetes,
      log,
    );
    const kwok = await ensureGoBuilt(
      root,
      `kwok/v${KWOK_VERSION}`,
      ['kwok', 'stages.yaml'],
      `kwok v${KWOK_VERSION}`,
      async (staging) => {
        await run('go', ['install', `sigs.k8s.io/kwok/cmd/kwok@v${KWOK_VERSION}`], { env: { ...GO_ENV, GOBIN: staging } });
        // What kwok does to its nodes and pods: its own "fast" stages (nodes Ready with a lease
        // heartbeat, pods Running and Ready at once, deleted pods gone), rendered from its module.
        const stages = path.join(await moduleDir('sigs.k8s.io/kwok', KWOK_VERSION), 'kustomize', 'stage', 'fast');
        writeFileSync(path.join(staging, 'stages.yaml'), await run(path.join(kubernetes, 'kubectl'), ['kustomize', stages]));
      },
      log,
    );
    const keda = await ensureGoBuilt(
      root,
      `keda/v${KEDA_VERSION}`,
      ['operator', 'adapter', 'crds'],
      `KEDA v${KEDA_VERSION}`,
      buildKeda,
      log,
    );
    const crictl = await ensureGoBuilt(
      root,
      `cri-tools/v${CRI_TOOLS_VERSION}`,
      ['crictl'],
      `crictl v${CRI_TOOLS_VERSION}`,
      (staging) => run('go', ['install', `sigs.k8s.io/cri-tools/cmd/crictl@v${CRI_TOOLS_VERSION}`], { env: { ...GO_ENV, GOBIN: staging } }),
      log,
    );
    const router = await ensureGoBuilt(
      root,
      `kube-router/v${KUBE_ROUTER_VERSION}`,
      ['kube-router'],
      `kube-router v${KUBE_ROUTER_VERSION}`,
      (staging) =>
        run('go', ['install', `github.com/cloudnativelabs/kube-router/v2/cmd/kube-router@v${KUBE_ROUTER_VERSION}`], {
          env: { ...GO_ENV, GOBIN: staging },
        }),
      log,
    );
    const bin = (dir, name) => path.join(dir, name);
    return {
      etcd: '/usr/bin/etcd',
      kubeApiserver: bin(kubernetes, 'kube-apiserver'),
      kubeControllerManager: bin(kubernetes, 'kube-controller-manager'),
      kubeScheduler: bin(kubernetes, 'kube-scheduler'),
      kubectl: bin(kubernetes, 'kubectl'),
      kwok: bin(kwok, 'kwok'),
      kwokStages: bin(kwok, 'stages.yaml'),
      kedaOperator: bin(keda, 'operator'),
      kedaAdapter: bin(keda, 'adapter'),
      kedaCrds: bin(keda, 'crds'),
      kubelet: bin(kubernetes, 'kubelet'),
      kubeProxy: bin(kubernetes, 'kube-proxy'),
      crictl: bin(crictl, 'crictl'),
      kubeRouter: bin(router, 'kube-router'),
    };
  });
}

const isMain = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  bootstrapK8s().then(
    (tools) => console.log(JSON.stringify(tools, null, 2)),
    (err) => {
      console.error(`bootstrap failed: ${err.message}`);
      process.exit(1);
    },
  );
}
