//! Go builds into `.tools/` for the bootstrap scripts (bootstrap-cluster.mjs, bootstrap-k8s.mjs,
//! bootstrap.mjs, jaeger-build.mjs): modules fetched through the Go module proxy, each build made
//! in a staging folder and moved into place whole, so a killed build never counts as installed.
//! Node built-ins only.
import { existsSync, mkdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { run } from './command.mjs';
import { withLockFile } from './lock-file.mjs';

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

/**
 * A pinned binary built when missing from the module in `deploy/<module>/` (its go.mod and go.sum
 * pin the whole graph) into `binary`'s folder, whose name carries the version, so a new pin builds
 * again. Under a lock of its own in `.tools/` (`lock`), not the install lock: checkouts sharing
 * `.tools` that do not need it do not wait for its build. Resolves with the binary's path.
 * @param {string} root
 * @param {{ binary: string, what: string, module: string, pkg: string, lock: string, needs: string, takes: string, nice?: boolean }} spec
 *   `what`: its name and version in the log; `pkg`: the package built; `needs`: who needs it, for the
 *   error when Go is missing; `takes`: how long a first build takes, for the log; `nice`: built at a
 *   low priority (beside a running service, whose calls come first).
 * @param {(line: string) => void} log
 */
export async function ensurePinnedGoBinary(root, spec, log) {
  const { binary } = spec;
  if (existsSync(binary)) return binary;
  return withLockFile(path.join(root, '.tools', spec.lock), log, `another ${spec.what} build`, async () => {
    if (existsSync(binary)) return binary; // built by the run we waited for
    if (!(await run('go', ['version']).catch(() => null)))
      throw new Error(`${spec.needs}, built from its Go module: install Go 1.24 or later`);
    const started = Date.now();
    log(`building ${spec.what} into ${path.relative(root, path.dirname(binary))} (Go module proxy; ${spec.takes})`);
    const staging = `${path.dirname(binary)}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    // -buildvcs=false: the module cache has no repository to stamp from. -mod=readonly: go.sum as committed.
    const build = ['go', 'build', '-o', path.join(staging, path.basename(binary)), spec.pkg];
    const [command, ...args] = spec.nice && process.platform !== 'win32' ? ['nice', '-n', '10', ...build] : build;
    await run(command, args, {
      cwd: path.join(realpathSync(root), 'deploy', spec.module),
      env: { ...process.env, GOFLAGS: '-buildvcs=false -mod=readonly' },
    });
    rmSync(path.dirname(binary), { recursive: true, force: true });
    renameSync(staging, path.dirname(binary));
    log(`built ${spec.what} in ${Math.round((Date.now() - started) / 1000)} s`);
    return binary;
  });
}
