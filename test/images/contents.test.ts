//! What each built image holds, read from the image itself (its files listed from `docker export`,
//! its configuration from `docker image inspect`), not from the Dockerfile: within its size budget,
//! a numeric non-root user, exactly the npm packages its role loads, one platform's Temporal native
//! library, no source maps, and the heavy parts only where the role runs them.
import test from 'ava';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { BUDGET_MB } from '../../scripts/images/build-images.mjs';
import { dockerCli, removeContainer, type Role } from '../../scripts/images/containers.js';
import { DOCKER } from '../../scripts/images/docker-engine.mjs';
import { ROLES, rolePackages } from '../../scripts/role-packages.mjs';

interface Built {
  role: Role;
  image: string;
  bytes: number;
  layers: number;
}
const images = JSON.parse(process.env.IMAGES_JSON!) as Built[];
const root = path.resolve(import.meta.dirname, '../..');

/** Every path in an image's file system (no leading `./`), directories with a trailing `/`. */
async function filesOf(image: string): Promise<Set<string>> {
  const name = `list-${path.basename(image).replace(/[^a-z0-9-]/g, '-')}-${process.pid}`;
  await dockerCli(['create', '--name', name, image]);
  try {
    const exported = spawn(DOCKER, ['export', name], { stdio: ['ignore', 'pipe', 'inherit'] });
    const tar = spawn('tar', ['-t'], { stdio: ['pipe', 'pipe', 'inherit'] });
    exported.stdout.pipe(tar.stdin);
    const files = new Set<string>();
    for await (const line of createInterface({ input: tar.stdout })) files.add(line.replace(/^\.\//, ''));
    return files;
  } finally {
    await removeContainer(name);
  }
}

const listings = new Map<Role, Promise<Set<string>>>();
const listing = (role: Role) => {
  if (!listings.has(role)) listings.set(role, filesOf(images.find((i) => i.role === role)!.image));
  return listings.get(role)!;
};
/** The top-level packages in the image's node_modules (`name` or `@scope/name`). */
function packagesIn(files: Set<string>): Set<string> {
  const found = new Set<string>();
  for (const f of files) {
    const m = /^app\/node_modules\/((?:@[^/]+\/)?[^/.@][^/]*)\/$/.exec(f);
    if (m) found.add(m[1]!);
  }
  return found;
}
const has = (files: Set<string>, prefix: string) => [...files].some((f) => f.startsWith(prefix));

test('each image within its budget, as a numeric non-root user running its role', async (t) => {
  const rows: string[] = [];
  for (const { role, image, bytes, layers } of images) {
    const mb = bytes / 1e6;
    rows.push(`${role.padEnd(15)} ${mb.toFixed(0).padStart(5)} MB (budget ${BUDGET_MB[role]} MB), ${layers} layers`);
    t.true(mb <= BUDGET_MB[role], `${role}: ${mb.toFixed(0)} MB over its budget of ${BUDGET_MB[role]} MB`);
    const [user, cmd] = (await dockerCli(['image', 'inspect', '--format', '{{.Config.User}}|{{json .Config.Cmd}}', image]))
      .trim()
      .split('|');
    t.is(user, '1000:1000', role);
    t.deepEqual(JSON.parse(cmd!), ['node', `dist/${ROLES[role].entry}.js`], role);
  }
  t.log(`\n${rows.join('\n')}`);
});

const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
/**
 * What the role's modules load, read from the source rather than from the build the prune read: the
 * runtime packages installed for this platform (another platform's optional builds are never
 * installed; development packages are what the build uses, not the role).
 */
const loadedBy = (role: Role) =>
  new Set(
    [...rolePackages(root, role, { dir: root, ext: '.ts' })].filter(
      (p) => !lock.packages[`node_modules/${p}`]?.dev && existsSync(path.join(root, 'node_modules', p)),
    ),
  );

for (const role of Object.keys(ROLES) as Role[]) {
  test(`the ${role} image holds exactly the npm packages its role loads`, async (t) => {
    const inImage = packagesIn(await listing(role));
    const loaded = loadedBy(role);
    t.deepEqual([...inImage].filter((p) => !loaded.has(p)).sort(), [], 'in the image but never loaded');
    t.deepEqual([...loaded].filter((p) => !inImage.has(p)).sort(), [], 'loaded but missing from the image');
  });
}

test('every image carries one platform of the Temporal native library, no Rust sources and no source maps', async (t) => {
  for (const { role } of images) {
    const files = await listing(role);
    const releases = new Set(
      [...files].map((f) => /^app\/node_modules\/@temporalio\/core-bridge\/releases\/([^/]+)\//.exec(f)?.[1]).filter(Boolean),
    );
    t.deepEqual([...releases], ['x86_64-unknown-linux-gnu'], role);
    t.false(has(files, 'app/node_modules/@temporalio/core-bridge/sdk-core/'), `${role}: Rust sources`);
    t.deepEqual(
      [...files]
        .filter((f) => f.startsWith('app/node_modules/') && !f.startsWith('app/node_modules/.cache/') && /\.[cm]?js\.map$/.test(f))
        .slice(0, 3),
      [],
      `${role}: source maps`,
    );
  }
});

test('the heavy parts are only where they run: Chromium in the browser image, LibreOffice and TensorFlow in the cpu image, no bundler in the API image', async (t) => {
  const chromium = 'usr/lib/chromium/chromium-headless-shell';
  const office = 'usr/lib/libreoffice/program/soffice.bin';
  for (const role of ['api', 'worker-core', 'worker-network'] as const) {
    const files = await listing(role);
    for (const heavy of [chromium, office, 'app/node_modules/@tensorflow/tfjs/', 'app/node_modules/puppeteer-core/'])
      t.false(has(files, heavy), `${role} holds ${heavy}`);
  }
  const api = await listing('api');
  for (const bundler of ['app/node_modules/webpack/', 'app/node_modules/@swc/', 'app/node_modules/swc-loader/'])
    t.false(has(api, bundler), `the API holds ${bundler}`);
  const browser = await listing('worker-browser');
  t.true(browser.has(chromium));
  t.false(has(browser, office));
  t.false(has(browser, 'app/node_modules/@tensorflow/tfjs/'));
  const gpu = [...browser].filter((f) => /^usr\/lib\/x86_64-linux-gnu\/(dri\/.+|libLLVM-)/.test(f));
  t.deepEqual(gpu, [], 'GPU drivers in a software-rendering browser');
  const cpu = await listing('worker-cpu');
  t.true(cpu.has(office));
  t.true(has(cpu, 'app/node_modules/@tensorflow/tfjs/'));
  t.false(has(cpu, chromium));
  for (const role of Object.keys(ROLES) as Role[]) t.false(has(await listing(role), 'usr/share/doc/bash/README'), `${role}: documentation`);
});
