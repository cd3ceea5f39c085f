//! Builds the pinned Jaeger (all-in-one: OTLP in, query API and UI out, traces in memory) from its
//! Go module through the module proxy, as the cluster's Temporal server is built
//! (bootstrap-cluster.mjs), into `.tools/jaeger/v<version>/jaeger`. The module in deploy/jaeger/
//! pins the whole dependency graph (go.mod, go.sum). About 7 minutes on 2 idle cores the first time
//! (the Go caches under $HOME make a rebuild mostly a link), so no start waits for it: `npm start`
//! and `npm run start:cluster` run it in the background once the service is up, and start Jaeger
//! when it is there; `npm run test:traces` builds it before its stack (`npm test` never needs it). Node built-ins only.
//!
//! CLI: `node scripts/jaeger-build.mjs`. Library: `await ensureJaeger({ root })`.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePinnedGoBinary } from './go-build.mjs';

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
export function ensureJaeger({ root = ROOT, log = (line) => console.log(`jaeger: ${line}`) } = {}) {
  const spec = {
    binary: jaegerBinary(root),
    what: `Jaeger v${JAEGER_VERSION}`,
    module: 'jaeger',
    pkg: 'github.com/jaegertracing/jaeger/cmd/jaeger',
    lock: '.jaeger-build.lock',
    needs: 'traces need Jaeger',
    takes: 'the first time takes minutes: 7 on 2 idle cores, up to 30 on busy ones',
    // npm start builds it beside a running service.
    nice: true,
  };
  return ensurePinnedGoBinary(root, spec, log);
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
