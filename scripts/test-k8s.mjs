#!/usr/bin/env node
//! `npm run test:k8s`: the Kubernetes manifests (deploy/kubernetes/) on a real control plane on this
//! machine, on kwok's simulated nodes and then on a real node. Installs what it needs (bootstrap.mjs,
//! then bootstrap-k8s.mjs: etcd, Kubernetes with its kubelet and kube-proxy, kwok, KEDA, crictl and
//! kube-network-policies built from the Go module proxy the first time; containerd, runc and the CNI
//! plugins from Debian), builds the role images as `npm run test:images` does (its Docker Engine,
//! its base), runs test/k8s/ with ava, one file after the other, and ends with two lines:
//! `k8s: <n> objects applied, <d>/<d> deployments available, browser pool <a> -> <b> -> <c> replicas`
//! `node: <p> pods ready on a real node, sandbox <on|off>, office offline <yes|no>, policies enforced <k>/<k>, rollout <r> calls 0 failed`
//! (the rollout's calls: a rolling update's and a second node's drain's).
//! Not part of `npm test`: the builds take both cores for many minutes the first time, and a node's
//! network on the host disturbs the browser tests running beside it. Runs as root.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootstrap } from './bootstrap.mjs';
import { bootstrapK8s } from './bootstrap-k8s.mjs';
import { ensureBaseImage } from './images/base-image.mjs';
import { buildImages } from './images/build-images.mjs';
import { ensureDockerEngine } from './images/docker-engine.mjs';
import { onPinnedNode } from './pinned-node.mjs';
import { exitingOnFailure, newRunDir } from './test-runs.mjs';

await onPinnedNode();

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const prepare = exitingOnFailure('npm run test:k8s');

const tools = await prepare(() => bootstrap({ root, stripeMock: false }));
const k8sTools = await prepare(() => bootstrapK8s({ root }));
const runDir = newRunDir(path.join(root, 'test-output'), 'k8s');
mkdirSync(path.join(runDir, 'logs'), { recursive: true });
console.log(`npm run test:k8s: logs in ${path.relative(process.cwd(), runDir)}/logs/`);
const results = path.join(runDir, 'results.json');
const nodeResults = path.join(runDir, 'node-results.json');
// The node runs the images `npm run test:images` builds, from the same cache.
const log = (line) => console.log(`npm run test:k8s: ${line}`);
const engine = await prepare(() => ensureDockerEngine({ logDir: path.join(runDir, 'logs'), log }));
const images = await prepare(async () => {
  const base = await ensureBaseImage({ workDir: runDir, log });
  return buildImages({ root, base: base.tag, tag: 'local', log });
});

const ava = spawn(
  process.execPath,
  [path.join(root, 'node_modules', 'ava', 'entrypoints', 'cli.mjs'), '--config', 'ava.k8s.config.mjs', ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      STACK_TOOLS_JSON: JSON.stringify(tools),
      K8S_TOOLS_JSON: JSON.stringify(k8sTools),
      K8S_RUN_DIR: runDir,
      K8S_RESULTS: results,
      K8S_NODE_RESULTS: nodeResults,
      K8S_IMAGES_JSON: JSON.stringify(images.map((i) => i.image)),
    },
  },
);
const code = await new Promise((resolve) => ava.on('close', (c) => resolve(c ?? 1)));
await engine.stop();
if (code === 0 && existsSync(results) && existsSync(nodeResults)) {
  const r = JSON.parse(readFileSync(results, 'utf8'));
  const n = JSON.parse(readFileSync(nodeResults, 'utf8'));
  console.log(`\nThe browser pool on kwok, as KEDA scaled it (a row a second):\n${r.table.join('\n')}\n`);
  console.log(`The browser pool on the real node, as KEDA scaled it:\n${n.table.join('\n')}\n`);
  console.log(`Inside each container on the node:\n${n.readings.join('\n')}\n`);
  // The rollout's count is the rolling update's calls and the node drain's together.
  const rollout = { calls: n.rollout.calls + n.drain.calls, failed: n.rollout.failed + n.drain.failed };
  console.log(
    `A second node drained while calls flowed: ${n.drain.calls} calls, ${n.drain.failed} failed; fewest Ready pods meanwhile ${JSON.stringify(n.drain.fewestReady)}\n`,
  );
  console.log(
    `k8s: ${r.objects} objects applied, ${r.available}/${r.deployments} deployments available, browser pool ${r.browser.join(' -> ')} replicas`,
  );
  console.log(
    `node: ${n.podsReady} pods ready on a real node, sandbox ${n.sandbox ? 'on' : 'off'}, office offline ${n.officeOffline ? 'yes' : 'no'}, policies enforced ${n.policies.enforced}/${n.policies.checked}, rollout ${rollout.calls} calls ${rollout.failed} failed`,
  );
}
process.exit(code);
