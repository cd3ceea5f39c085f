#!/usr/bin/env node
//! The npm packages each role of the service loads, and the pruning of the others from an image's
//! node_modules. A role is one process kind of the production shape: the API or one worker pool.
//! Its packages are those its entry module reaches through the service's own modules (static and
//! dynamic imports, worker-thread and child-process modules started beside a module), then every
//! package those need in turn (package-lock.json). A dynamic import of another pool's modules
//! (workers/pools.ts loads a pool's tools, or the core pool's workers, only in a process that runs
//! that pool) is not followed.
//!
//! CLI, in the image build after `npm prune --omit=dev` (Dockerfile):
//!   `node scripts/role-packages.mjs <role> [--prune]`: lists (or with --prune, keeps only) the
//!   role's packages in ./node_modules, reading the compiled service under ./dist.
//! Node built-ins only.
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Each role's entry module (without extension) and the pools whose modules it may load. */
export const ROLES = {
  api: { entry: 'api/server', pools: [] },
  'worker-core': { entry: 'workers/core', pools: ['core'] },
  'worker-cpu': { entry: 'workers/cpu', pools: ['cpu'] },
  'worker-network': { entry: 'workers/network', pools: ['network'] },
  'worker-browser': { entry: 'workers/browser', pools: ['browser'] },
};

/**
 * Where each pool's own modules are: what a process that does not run the pool never imports. The
 * tools' handlers (activities/tools/) are reached only through their pool's handler map here.
 */
const POOL_MODULES = {
  cpu: 'activities/cpu/',
  network: 'activities/network/',
  browser: 'activities/browser/',
  core: 'workers/core-pool.',
};

/** Specifiers a module loads: imports and re-exports (not type-only), dynamic imports, require and resolve calls. */
export function loadedSpecifiers(source) {
  const code = source.replace(/^\s*(?:\/\/|\*|\/\*).*$/gm, '');
  const found = [];
  for (const m of code.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'/gm))
    if (!m[2]) found.push({ specifier: m[3], dynamic: false });
  for (const m of code.matchAll(/^\s*import\s+'([^']+)'/gm)) found.push({ specifier: m[1], dynamic: false });
  for (const m of code.matchAll(/(?<![.\w$])import\(\s*'([^']+)'/g)) found.push({ specifier: m[1], dynamic: true });
  for (const m of code.matchAll(/(?:(?<![.\w$])require(?:\.resolve)?|import\.meta\.resolve)\(\s*'([^']+)'/g))
    found.push({ specifier: m[1], dynamic: false });
  // Thread and child-process modules are named beside the module that starts them (lib/thread-pool.ts).
  for (const m of code.matchAll(/'([a-z][a-z-]*-(?:thread|process))'/g))
    found.push({ specifier: `./${m[1]}.js`, dynamic: false, sibling: true });
  return found;
}

export const packageOf = (specifier) => (specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]);
const isBuiltin = (specifier) => specifier.startsWith('node:') || builtinModules.includes(specifier);

/** The file a relative specifier names: the build's `.js`, or from source the `.ts` it was compiled from. */
function resolveRelative(from, specifier, ext) {
  const target = path.resolve(path.dirname(from), specifier);
  const candidates = ext === '.ts' ? [target.replace(/\.js$/, '.ts'), target] : [target];
  return candidates.find((file) => existsSync(file));
}

/**
 * The packages the role's own modules name, and the modules read. `dir`: the compiled service
 * (dist/, `.js`) or the source tree (`.ts`).
 */
export function directPackages(dir, role, ext = '.js', dependencies = []) {
  const { entry, pools } = ROLES[role];
  const otherPools = Object.entries(POOL_MODULES)
    .filter(([pool]) => !pools.includes(pool))
    .map(([, prefix]) => path.join(dir, prefix)); // a trailing separator is kept
  const packages = new Set();
  /** Of each package, the subpaths the role's modules import ('' for the package itself). */
  const subpaths = new Map();
  const seen = new Set();
  const queue = [path.join(dir, entry + ext)];
  while (queue.length) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    // A package named in a string and resolved at run time (the upscaling models, read from their packages).
    for (const m of source.matchAll(/'((?:@[\w.-]+\/)?[\w.-]+)(?:\/[^']*)?'/g)) if (dependencies.includes(m[1])) packages.add(m[1]);
    for (const { specifier, dynamic, sibling } of loadedSpecifiers(source)) {
      if (specifier.startsWith('.')) {
        const target = resolveRelative(file, specifier, ext);
        if (!target) {
          if (sibling) continue; // a quoted name that is not a module beside this one
          throw new Error(`${path.relative(dir, file)}: ${specifier} not found`);
        }
        if (dynamic && otherPools.some((d) => target.startsWith(d))) continue;
        if (/\.(c|m)?(j|t)s$/.test(target)) queue.push(target);
      } else if (!isBuiltin(specifier)) {
        const name = packageOf(specifier);
        packages.add(name);
        if (!subpaths.has(name)) subpaths.set(name, new Set());
        subpaths.get(name).add(specifier.slice(name.length).replace(/^\//, ''));
      }
    }
  }
  return { packages, modules: seen, subpaths };
}

/** Bare and relative specifiers a package's own file loads (compiled CommonJS or ESM, either quote). */
function packageFileSpecifiers(source) {
  const found = [];
  for (const m of source.matchAll(/(?<![.\w$])require\(\s*(['"])([^'"]+)\1\s*\)/g)) found.push(m[2]);
  for (const m of source.matchAll(/(?:^|[;\s])(?:import|export)\s[^'";]*?from\s*(['"])([^'"]+)\1/g)) found.push(m[2]);
  for (const m of source.matchAll(/(?<![.\w$])import\(\s*(['"])([^'"]+)\1\s*\)/g)) found.push(m[2]);
  return found;
}

/** The file Node loads for `target` (a path without or with its extension, or a folder). */
function resolveFile(target) {
  for (const candidate of [target, `${target}.js`, `${target}.cjs`, `${target}.mjs`, `${target}.json`, path.join(target, 'index.js')])
    if (existsSync(candidate) && !statSync(candidate).isDirectory()) return candidate;
  return undefined;
}

/**
 * The packages a package's modules reached from `subpaths` load in turn: what a role needs of a
 * package it imports only in part (the API takes `@temporalio/worker`'s connection and runtime,
 * never its workflow bundler, so webpack and swc stay out of its image). Undefined when the whole
 * package is imported, or when its `exports` map decides what a subpath is (then all of it counts).
 */
export function reachedDependencies(packageDir, subpaths) {
  if (subpaths.has('') || !existsSync(path.join(packageDir, 'package.json'))) return undefined;
  if (JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')).exports) return undefined;
  const reached = new Set();
  const seen = new Set();
  const queue = [...subpaths].map((sub) => resolveFile(path.join(packageDir, sub)));
  if (queue.includes(undefined)) return undefined;
  while (queue.length) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    if (!/\.(c|m)?js$/.test(file)) continue;
    for (const specifier of packageFileSpecifiers(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) {
        const target = resolveFile(path.resolve(path.dirname(file), specifier));
        if (target) queue.push(target);
      } else if (!isBuiltin(specifier)) reached.add(packageOf(specifier));
    }
  }
  return reached;
}

/**
 * The lock's paths (`node_modules/a`, `node_modules/a/node_modules/b`) of `names` and of every
 * package they need, resolved as Node does: the nearest node_modules up from the one asking.
 */
export function lockClosure(lock, names, { dependenciesOf = new Map() } = {}) {
  const packages = lock.packages;
  const keep = new Set();
  const find = (fromPath, name) => {
    for (let at = fromPath; ; ) {
      const candidate = `${at ? `${at}/` : ''}node_modules/${name}`;
      if (packages[candidate]) return candidate;
      if (!at) return undefined;
      const i = at.lastIndexOf('/node_modules/');
      at = i === -1 ? '' : at.slice(0, i);
    }
  };
  const queue = [...names].map((name) => {
    const found = find('', name);
    if (!found) throw new Error(`${name} is not in package-lock.json`);
    return found;
  });
  while (queue.length) {
    const at = queue.pop();
    if (keep.has(at)) continue;
    keep.add(at);
    const meta = packages[at];
    const wanted = { ...meta.dependencies, ...meta.optionalDependencies, ...meta.peerDependencies };
    const only = dependenciesOf.get(at.slice('node_modules/'.length));
    for (const name of Object.keys(wanted)) {
      if (only && !only.has(name)) continue;
      const found = find(at, name);
      if (found && !packages[found].dev) queue.push(found);
    }
  }
  return keep;
}

/** The role's packages in `root`'s lock (top-level names), from its compiled or source modules. */
export function rolePackages(root, role, { dir = path.join(root, 'dist'), ext = '.js' } = {}) {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const { packages, subpaths } = directPackages(dir, role, ext, Object.keys(manifest.dependencies));
  const dependenciesOf = new Map();
  for (const [name, imported] of subpaths) {
    const reached = reachedDependencies(path.join(root, 'node_modules', name), imported);
    if (reached) dependenciesOf.set(name, reached);
  }
  const closure = lockClosure(lock, packages, { dependenciesOf });
  return new Set(
    [...closure].filter((p) => !p.slice('node_modules/'.length).includes('/node_modules/')).map((p) => p.slice('node_modules/'.length)),
  );
}

/**
 * What an image's packages hold that no process on it can load: `@temporalio/core-bridge` ships its
 * native library for five platforms and the Rust sources it was built from; only the library of the
 * platform the build runs on (the image's) is kept. Returns the paths removed, relative to `root`.
 */
export function pruneForeignBuilds(root, target = `${{ x64: 'x86_64', arm64: 'aarch64' }[process.arch]}-unknown-linux-gnu`) {
  const bridge = path.join(root, 'node_modules', '@temporalio', 'core-bridge');
  if (!existsSync(bridge)) return [];
  const releases = path.join(bridge, 'releases');
  if (!existsSync(path.join(releases, target, 'index.node'))) throw new Error(`@temporalio/core-bridge has no library for ${target}`);
  const foreign = [
    ...readdirSync(releases)
      .filter((name) => name !== target)
      .map((name) => path.join(releases, name)),
    ...['sdk-core', 'src', 'bridge-macros', 'Cargo.toml', 'Cargo.lock'].map((name) => path.join(bridge, name)).filter((p) => existsSync(p)),
  ];
  for (const p of foreign) rmSync(p, { recursive: true, force: true });
  return foreign.map((p) => path.relative(root, p));
}

/** Files Node never loads, whatever imports their package: source maps and TypeScript declarations. */
const UNLOADED_FILE = /\.(?:[cm]?js|css|[cm]?ts)\.map$|\.d\.[cm]?ts$|\.tsbuildinfo$/;

/**
 * Removes from `root/node_modules` the files no process loads (UNLOADED_FILE), leaving `.cache`
 * (the prebuilt workflow bundle) alone. Returns the bytes removed.
 */
export function pruneUnloadedFiles(root) {
  const modules = path.join(root, 'node_modules');
  let bytes = 0;
  for (const entry of readdirSync(modules, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !UNLOADED_FILE.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (path.relative(modules, file).startsWith('.cache')) continue;
    bytes += statSync(file).size;
    rmSync(file);
  }
  return bytes;
}

/** Removes from `root/node_modules` every top-level package the role does not load; returns their names. */
export function pruneToRole(root, role) {
  const keep = rolePackages(root, role);
  const modules = path.join(root, 'node_modules');
  const removed = [];
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue; // .bin, .cache (the workflow bundle), npm's own .package-lock.json
    const names = entry.startsWith('@') ? readdirSync(path.join(modules, entry)).map((n) => `${entry}/${n}`) : [entry];
    for (const name of names) {
      if (keep.has(name)) continue;
      rmSync(path.join(modules, name), { recursive: true, force: true });
      removed.push(name);
    }
    // A scope none of whose packages the role loads goes too.
    if (entry.startsWith('@') && readdirSync(path.join(modules, entry)).length === 0)
      rmSync(path.join(modules, entry), { recursive: true });
  }
  return removed;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const [role, flag] = process.argv.slice(2);
  if (!ROLES[role] || (flag && flag !== '--prune')) {
    console.error(`usage: node scripts/role-packages.mjs <${Object.keys(ROLES).join('|')}> [--prune]`);
    process.exit(2);
  }
  const root = process.cwd();
  if (flag) {
    const removed = pruneToRole(root, role);
    const foreign = pruneForeignBuilds(root);
    const bytes = pruneUnloadedFiles(root);
    console.log(
      `${role}: removed ${removed.length} packages it never loads, ${foreign.length} other platforms' builds and sources, ${(bytes / 2 ** 20).toFixed(0)} MB of source maps and type declarations`,
    );
  } else {
    console.log([...rolePackages(root, role)].sort().join('\n'));
  }
}
