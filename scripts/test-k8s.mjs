#!/usr/bin/env node
//! `npm run test:k8s`: the Kubernetes manifests (deploy/kubernetes/) on a real control plane on this
//! machine. Installs what it needs (bootstrap.mjs, then bootstrap-k8s.mjs: etcd, Kubernetes, kwok
//! and KEDA built from the Go module proxy the first time), runs test/k8s/ with ava, and ends with
//! one line: `k8s: <n> objects applied, <d>/<d> deployments available, browser pool <a> -> <b> -> <c> replicas`.
//! Not part of `npm test`: the builds take both cores for many minutes the first time.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootstrap } from './bootstrap.mjs';
import { bootstrapK8s } from './bootstrap-k8s.mjs';
import { onPinnedNode } from './pinned-node.mjs';
import { exitingOnFailure, newRunDir } from './test-runs.mjs';

await onPinnedNode();

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const prepare = exitingOnFailure('npm run test:k8s');

const tools = await prepare(() => bootstrap({ root, stripeMock: false }));
const k8sTools = await prepare(() => bootstrapK8s({ root }));
const runDir = newRunDir(path.join(root, 'test-output'), 'k8s');
mkdirSync(runDir, { recursive: true });
console.log(`npm run test:k8s: logs in ${path.relative(process.cwd(), runDir)}/logs/`);
const results = path.join(runDir, 'results.json');

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
    },
  },
);
const code = await new Promise((resolve) => ava.on('close', (c) => resolve(c ?? 1)));
if (code === 0 && existsSync(results)) {
  const r = JSON.parse(readFileSync(results, 'utf8'));
  console.log(`\nThe browser pool, as KEDA scaled it (a row a second):\n${r.table.join('\n')}\n`);
  console.log(
    `k8s: ${r.objects} objects applied, ${r.available}/${r.deployments} deployments available, browser pool ${r.browser.join(' -> ')} replicas`,
  );
}
process.exit(code);
