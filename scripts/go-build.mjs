//! Go builds into `.tools/` for the bootstrap scripts (bootstrap-cluster.mjs, bootstrap-k8s.mjs):
//! modules fetched through the Go module proxy, each build made in a staging folder and moved into
//! place whole, so a killed build never counts as installed. Node built-ins only.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { run } from './command.mjs';

/** No VCS stamping: the module cache has no repository. */
export const GO_ENV = { ...process.env, GOFLAGS: '-buildvcs=false' };

/** Where `go mod download` put `module@version` (the module cache is read-only). */
export async function moduleDir(module, version) {
  const { Dir, Error: error } = JSON.parse(await run('go', ['mod', 'download', '-json', `${module}@v${version}`], { env: GO_ENV }));
  if (error) throw new Error(`go mod download ${module}@v${version}: ${error}`);
  return Dir;
}

/**
 * Builds into `.tools/<dir>` through a staging folder, so a killed build never counts as
 * installed; `build(staging)` leaves there the files `expect` names.
 */
export async function ensureGoBuilt(root, dir, expect, what, build, log) {
  const target = path.join(root, '.tools', dir);
  if (expect.every((name) => existsSync(path.join(target, name)))) return target;
  if (!(await run('go', ['version']).catch(() => null)))
    throw new Error(
      `${what} is built from its Go module: install Go 1.26 or later (https://go.dev/dl is not reachable here; the machine image carries it)`,
    );
  log(`building ${what} into .tools/${dir} (Go module proxy; minutes on 2 cores the first time)`);
  const staging = `${target}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  await build(staging);
  rmSync(target, { recursive: true, force: true });
  renameSync(staging, target);
  return target;
}
