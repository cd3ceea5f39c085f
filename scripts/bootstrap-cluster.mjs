#!/usr/bin/env node
//! Installs what the production-shaped stack (`npm run start:cluster`) needs beyond bootstrap.mjs:
//! PostgreSQL and HAProxy from Debian, and the Temporal server, its SQL schema tool and the UI
//! server built from their Go modules through the Go module proxy, at the versions
//! docker-compose.yml pins, into `.tools/` (the Go caches stay under $HOME, so a rebuild mostly
//! links). Idempotent: prints a line per install, nothing when all is present.
//!
//! CLI: `node scripts/bootstrap-cluster.mjs`. Library: `await bootstrapCluster({ root })`.
import { renameSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { realpathSync } from 'node:fs';
import { aptInstall, missingAptPackages, withInstallLock } from './bootstrap.mjs';
import { run } from './command.mjs';
import { GO_ENV, ensureGoBuilt } from './go-build.mjs';

/** The Temporal server release: docker-compose.yml runs the same (temporalio/server, admin-tools). */
export const TEMPORAL_SERVER_VERSION = '1.29.1';
/** The Temporal UI release: docker-compose.yml runs the same (temporalio/ui). */
export const TEMPORAL_UI_VERSION = '2.45.1';

export const CLUSTER_APT_PACKAGES = [
  'postgresql', // Temporal's persistence and SQL visibility (Debian 12: PostgreSQL 15)
  'haproxy', // the load balancer in front of the API replicas
  'docker-compose', // `docker-compose config -q`: test:cluster checks the compose file without an engine
];

/** Go binaries from the module proxy, renamed as the official images name them (go-build.mjs builds them). */
const GO_BUILDS = [
  {
    dir: `temporal-server/v${TEMPORAL_SERVER_VERSION}`,
    packages: [
      `go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}`,
      `go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`,
    ],
    rename: { server: 'temporal-server', sql: 'temporal-sql-tool' },
  },
  {
    dir: `temporal-ui-server/v${TEMPORAL_UI_VERSION}`,
    packages: [`github.com/temporalio/ui-server/v2/cmd/server@v${TEMPORAL_UI_VERSION}`],
    rename: { server: 'temporal-ui-server' },
  },
];

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** One of GO_BUILDS: `go install` into the staging folder, the binaries renamed as the images name them. */
function ensureGoBuild(root, { dir, packages, rename }, log) {
  return ensureGoBuilt(
    root,
    dir,
    Object.values(rename),
    packages.join(' '),
    async (staging) => {
      await run('go', ['install', ...packages], { env: { ...GO_ENV, GOBIN: staging } });
      for (const [built, name] of Object.entries(rename)) renameSync(path.join(staging, built), path.join(staging, name));
    },
    log,
  );
}

/**
 * Installs whatever the cluster lacks; resolves with the paths it runs.
 * @param {{ root?: string, log?: (line: string) => void }} [options]
 */
export async function bootstrapCluster({ root = ROOT, log = (line) => console.log(`bootstrap: ${line}`) } = {}) {
  return withInstallLock(root, log, async () => {
    const apt = await missingAptPackages(CLUSTER_APT_PACKAGES);
    if (apt.length) await aptInstall(apt, log);
    // One build at a time: each already takes both cores.
    for (const build of GO_BUILDS) await ensureGoBuild(root, build, log);
    const tools = path.join(root, '.tools');
    const server = path.join(tools, GO_BUILDS[0].dir);
    return {
      temporalServer: path.join(server, 'temporal-server'),
      temporalSqlTool: path.join(server, 'temporal-sql-tool'),
      temporalUiServer: path.join(tools, GO_BUILDS[1].dir, 'temporal-ui-server'),
      postgresBin: await postgresBinDir(),
      haproxy: '/usr/sbin/haproxy',
    };
  });
}

/** Debian keeps each PostgreSQL major's server binaries in /usr/lib/postgresql/<major>/bin. */
export async function postgresBinDir() {
  const majors = (await run('ls', ['/usr/lib/postgresql']).catch(() => '')).split(/\s+/).filter((m) => /^\d+$/.test(m));
  const newest = majors.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)');
  return `/usr/lib/postgresql/${newest}/bin`;
}

const isMain = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  bootstrapCluster().catch((err) => {
    console.error(`bootstrap failed: ${err.message}`);
    process.exit(1);
  });
}
