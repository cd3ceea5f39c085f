//! Builds the pinned Jaeger (all-in-one: OTLP in, query API and UI out, traces in memory) from its
//! Go module through the module proxy, as the cluster's Temporal server is built
//! (bootstrap-cluster.mjs), into `.tools/jaeger/v<version>/jaeger`. The module in deploy/jaeger/
//! pins the whole dependency graph (go.mod, go.sum). About 7 minutes on 2 idle cores the first time
//! (the Go caches under $HOME make a rebuild mostly a link), so no start waits for it: `npm start`
//! and `npm run start:cluster` run it in the background once the service is up, and start Jaeger
//! when it is there; `npm run test:traces` builds it before its stack (`npm test` never needs it). Node built-ins only.
//!
//! CLI: `node scripts/jaeger-build.mjs`. Library: `await ensureJaeger({ root })`.
import { existsSync, mkdirSync, renameSync, rmSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from './command.mjs';
import { withLockFile } from './lock-file.mjs';

export const JAEGER_VERSION = '1.76.0';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where the binary lies once built (its folder names the version: a new pin builds again). */
export function jaegerBinary(root = ROOT) {
  return path.join(root, '.tools', 'jaeger', `v${JAEGER_VERSION}`, 'jaeger');
}

/**
 * The Jaeger binary, built when missing. Resolves with its path; rejects (with the build's
 * output) when Go is missing or the build fails.
 * @param {{ root?: string, log?: (line: string) => void }} [options]
 */
export async function ensureJaeger({ root = ROOT, log = (line) => console.log(`jaeger: ${line}`) } = {}) {
  const binary = jaegerBinary(root);
  if (existsSync(binary)) return binary;
  return withLockFile(path.join(root, '.tools', '.jaeger-build.lock'), log, 'another Jaeger build', async () => {
    if (existsSync(binary)) return binary; // built by the run we waited for
    const go = await run('go', ['version']).catch(() => null);
    if (!go) throw new Error('traces need Jaeger, built from its Go module: install Go 1.24 or later');
    const started = Date.now();
    log(
      `building Jaeger v${JAEGER_VERSION} into ${path.relative(process.cwd(), path.dirname(binary))} (Go module proxy; the first time takes minutes: 7 on 2 idle cores, up to 30 on busy ones)`,
    );
    const staging = `${path.dirname(binary)}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    // -buildvcs=false: the module cache has no repository to stamp from. -mod=readonly: go.sum as committed.
    // Niced: npm start builds it beside a running service, whose calls come first.
    const build = ['go', 'build', '-o', path.join(staging, 'jaeger'), 'github.com/jaegertracing/jaeger/cmd/jaeger'];
    const [command, ...args] = process.platform === 'win32' ? build : ['nice', '-n', '10', ...build];
    await run(command, args, {
      cwd: path.join(realpathSync(root), 'deploy', 'jaeger'),
      env: { ...process.env, GOFLAGS: '-buildvcs=false -mod=readonly' },
    });
    rmSync(path.dirname(binary), { recursive: true, force: true });
    renameSync(staging, path.dirname(binary));
    log(`built Jaeger v${JAEGER_VERSION} in ${Math.round((Date.now() - started) / 1000)} s`);
    return binary;
  });
}

const isMain = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  ensureJaeger().then(
    (binary) => console.log(binary),
    (err) => {
      console.error(`jaeger build failed: ${err.message}`);
      process.exit(1);
    },
  );
}
