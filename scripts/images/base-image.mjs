//! The base the images are built on here, where no registry serves `node:24-bookworm-slim`: Debian
//! bookworm (`debootstrap --variant=minbase` from the Debian mirror this machine's apt uses), Node
//! from the npm registry's own package (the release scripts/pinned-node.mjs pins, which `.tools/node/`
//! already holds), npm from its package, and the user `node` (1000:1000) as the official image has
//! it. Equivalent to `node:24-bookworm-slim` for the Dockerfile: Node and npm on PATH, apt working.
//!
//! What it carries of this machine, deliberately: its CA bundle, at Debian's standard path with
//! `NODE_EXTRA_CA_CERTS` pointing at it. The package registries verify here only with that bundle
//! (the stock one fails), and the build's `npm ci` and `apt-get` must reach them. Nothing else of the
//! machine goes in; built from the official base elsewhere, the images carry none of it.
//!
//! Made once: the image's tag holds a digest of this recipe, so a changed recipe (or Node release)
//! makes a new base and an unchanged one is reused. Node built-ins only.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../command.mjs';
import { NODE_VERSION, ensurePinnedNode } from '../pinned-node.mjs';
import { DOCKER, docker } from './docker-engine.mjs';

/** npm as the base carries it, checked against its registry hash. */
export const NPM_PACKAGE = {
  version: '11.21.2',
  integrity: 'sha512-7HPApk+AflMUavSseL1Pm6CnYqMIHk53x+KmuhqmTDqPkjPMgxIpTPcTqsE91EKNw4gFBJV9fnXiSdGm1DXq9A==',
};
export const DEBIAN_SUITE = 'bookworm';
/** The machine's CA bundle, and where the base keeps it (Debian's standard path). */
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
const BASE_REPOSITORY = 'utility-tools/node-base';

/** The Debian mirror this machine's apt uses (deb822 `URIs:` or a one-line `deb` entry). */
export function debianMirror(sourcesText) {
  const uri =
    /^URIs:\s*(\S+\/debian)\s*$/m.exec(sourcesText)?.[1] ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\s+\S+/m.exec(sourcesText)?.[1];
  return uri ?? 'http://deb.debian.org/debian';
}

function machineSources() {
  const files = [
    '/etc/apt/sources.list',
    ...(existsSync('/etc/apt/sources.list.d')
      ? readdirSync('/etc/apt/sources.list.d').map((f) => path.join('/etc/apt/sources.list.d', f))
      : []),
  ];
  return files
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
}

/** The base's own apt sources: the release, its updates and its security fixes, as the official image lists them. */
function aptSources(mirror) {
  const security = mirror.replace(/\/debian$/, '/debian-security');
  return [
    `Types: deb\nURIs: ${mirror}\nSuites: ${DEBIAN_SUITE} ${DEBIAN_SUITE}-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n`,
    `Types: deb\nURIs: ${security}\nSuites: ${DEBIAN_SUITE}-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n`,
  ].join('\n');
}

/**
 * What Debian's `slim` images leave out of every package they install (debuerreotype's
 * slimify): documentation, manual pages and translations, the copyright files kept. The
 * official Node base is built on such an image, so the stages' `apt-get install`s skip them here too.
 */
const SLIM_EXCLUDES = [
  '/usr/share/doc/*',
  '/usr/share/groff/*',
  '/usr/share/info/*',
  '/usr/share/linda/*',
  '/usr/share/lintian/overrides/*',
  '/usr/share/locale/*',
  '/usr/share/man/*',
];
const SLIM_INCLUDES = ['/usr/share/doc/*/copyright', '/usr/share/locale/locale.alias'];

/** A dpkg path pattern as a regular expression: `*` matches any characters, `/` included, as dpkg's own matching does. */
const patternRegex = (pattern) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`);

/** Writes the slim rules for dpkg and removes what the bootstrap installed before them, as slimify does. */
function slimify(rootfs) {
  const rules = [...SLIM_EXCLUDES.map((p) => `path-exclude ${p}`), ...SLIM_INCLUDES.map((p) => `path-include ${p}`)];
  writeFileSync(
    path.join(rootfs, 'etc/dpkg/dpkg.cfg.d/docker'),
    `# Debian's slim image rules: what every package leaves out.\n${rules.join('\n')}\n`,
  );
  const excluded = SLIM_EXCLUDES.map(patternRegex);
  const included = SLIM_INCLUDES.map(patternRegex);
  for (const top of new Set(SLIM_EXCLUDES.map((p) => p.slice(0, p.indexOf('/*'))))) {
    const dir = path.join(rootfs, top);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isDirectory()) continue;
      const file = path.join(entry.parentPath, entry.name);
      const inImage = `/${path.relative(rootfs, file)}`;
      if (excluded.some((r) => r.test(inImage)) && !included.some((r) => r.test(inImage))) rmSync(file, { force: true });
    }
  }
}

/** The image's configuration, as `docker import --change` takes it. */
const CHANGES = [
  'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  `ENV NODE_VERSION=${NODE_VERSION}`,
  `ENV NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`,
  'CMD ["node"]',
];

/** The base's tag: the Node release and a digest of everything that makes it. */
export function baseImageTag() {
  const recipe = createHash('sha256')
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(JSON.stringify({ NODE_VERSION, NPM_PACKAGE, CHANGES }))
    .digest('hex')
    .slice(0, 12);
  return `${BASE_REPOSITORY}:${NODE_VERSION}-${DEBIAN_SUITE}-${recipe}`;
}

/** Unpacks npm's registry tarball into the root file system, checked against its pinned hash. */
async function installNpm(rootfs, staging) {
  await run('npm', ['pack', `npm@${NPM_PACKAGE.version}`, '--pack-destination', staging, '--silent', '--no-audit', '--no-fund'], {
    cwd: staging,
  });
  const tarball = path.join(staging, `npm-${NPM_PACKAGE.version}.tgz`);
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  if (integrity !== NPM_PACKAGE.integrity)
    throw new Error(`npm@${NPM_PACKAGE.version} from the registry is not the pinned tarball (${integrity})`);
  const target = path.join(rootfs, 'usr/local/lib/node_modules/npm');
  mkdirSync(target, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', path.join(rootfs, 'usr/local/bin/npm'));
  symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', path.join(rootfs, 'usr/local/bin/npx'));
}

/** Makes the root file system in `rootfs` (as root: debootstrap and chroot need it). */
async function makeRootfs(rootfs, staging, log) {
  const mirror = debianMirror(machineSources());
  log(`debootstrap --variant=minbase ${DEBIAN_SUITE} from ${mirror}`);
  await run('debootstrap', ['--variant=minbase', DEBIAN_SUITE, rootfs, mirror]);
  rmSync(path.join(rootfs, 'etc/apt/sources.list'), { force: true });
  writeFileSync(path.join(rootfs, 'etc/apt/sources.list.d/debian.sources'), aptSources(mirror));
  slimify(rootfs);
  for (const dir of ['var/lib/apt/lists', 'var/cache/apt', 'var/log', 'tmp'])
    for (const entry of readdirSync(path.join(rootfs, dir))) rmSync(path.join(rootfs, dir, entry), { recursive: true, force: true });

  const nodeBin = await ensurePinnedNode({ log });
  mkdirSync(path.join(rootfs, 'usr/local/bin'), { recursive: true });
  copyFileSync(path.join(nodeBin, 'node'), path.join(rootfs, 'usr/local/bin/node'));
  await installNpm(rootfs, staging);
  mkdirSync(path.join(rootfs, 'etc/ssl/certs'), { recursive: true });
  copyFileSync(CA_BUNDLE, path.join(rootfs, CA_BUNDLE));
  await run('chroot', [rootfs, 'groupadd', '--gid', '1000', 'node']);
  await run('chroot', [rootfs, 'useradd', '--uid', '1000', '--gid', 'node', '--shell', '/bin/bash', '--create-home', 'node']);
  const version = (await run('chroot', [rootfs, '/usr/local/bin/node', '--version'])).trim();
  if (version !== `v${NODE_VERSION}`) throw new Error(`the base's node says ${version}`);
}

/** `tar -c rootfs | docker import - tag`, with the image's configuration. */
function importRootfs(rootfs, tag) {
  const tar = spawn('tar', ['-C', rootfs, '--numeric-owner', '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const imported = run(DOCKER, ['import', ...CHANGES.flatMap((c) => ['--change', c]), '-', tag], { stdio: [tar.stdout, 'pipe', 'pipe'] });
  const tarred = new Promise((resolve, reject) =>
    tar.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar exited ${code}`)))),
  );
  return Promise.all([tarred, imported]);
}

/**
 * The local base's tag, made first when missing (about a minute: debootstrap, then `docker import`).
 * @param {{ workDir: string, log: (line: string) => void }} options
 */
export async function ensureBaseImage({ workDir, log }) {
  const tag = baseImageTag();
  const present = await docker(['image', 'inspect', '--format', '{{.Id}}', tag]).then(
    () => true,
    () => false,
  );
  if (present) return { tag, made: false };
  const staging = path.join(workDir, `base-${process.pid}`);
  const rootfs = path.join(staging, 'rootfs');
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(rootfs, { recursive: true });
  const started = Date.now();
  try {
    await makeRootfs(rootfs, staging, log);
    await importRootfs(rootfs, tag);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  log(`made the base image ${tag} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return { tag, made: true };
}
