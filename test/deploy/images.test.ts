//! The images, one per role, as the Dockerfile builds them (no Docker engine runs here): hadolint
//! finds nothing in it, each role's stage holds only the system packages and npm packages its
//! modules use, and runs its own entry as a numeric non-root user.
import test from 'ava';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROLES, directPackages, rolePackages } from '../../scripts/role-packages.mjs';
import { toolsOfPool } from '../../domain/tools/catalogue.js';
import { testEnv } from '../helpers/env.js';

const root = path.resolve(import.meta.dirname, '../..');
const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');

interface Stage {
  name: string;
  from: string;
  /** Its instructions, continuation lines joined. */
  lines: string[];
}

function stages(text: string): Stage[] {
  const joined = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const found: Stage[] = [];
  for (const line of joined) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) found.push({ name: from[2] ?? '', from: from[1]!, lines: [] });
    else found.at(-1)?.lines.push(line);
  }
  return found;
}

const all = stages(dockerfile);
const stage = (name: string) => all.find((s) => s.name === name);
/** A stage's instructions with those of the stages it is built on, base first. */
function lineage(name: string): string[] {
  const s = stage(name);
  return s ? [...lineage(s.from), ...s.lines] : [];
}
const aptPackages = (name: string) =>
  lineage(name).flatMap((l) => [...l.matchAll(/apt-get install ((?:-[^\s]+\s+)*)([^&]+)/g)].flatMap((m) => m[2]!.trim().split(/\s+/)));

const SYSTEM_PACKAGES: Record<keyof typeof ROLES, string[]> = {
  api: [],
  'worker-core': [],
  'worker-network': [],
  'worker-cpu': ['libreoffice-writer-nogui', 'python3-uno'],
  'worker-browser': ['chromium-headless-shell'],
};
const HEAVY = ['chromium-headless-shell', 'libreoffice-writer-nogui', 'python3-uno'];

test('hadolint finds nothing in the Dockerfile', async (t) => {
  const run = promisify(execFile);
  const { stdout, stderr } = await run(
    testEnv.hadolintPath(),
    ['--config', path.join(root, '.hadolint.yaml'), '--no-color', 'Dockerfile'],
    { cwd: root },
  ).catch((err: { stdout: string; stderr: string }) => err);
  t.is(`${stdout}${stderr}`.trim(), '');
});

for (const role of Object.keys(ROLES) as (keyof typeof ROLES)[]) {
  test(`the ${role} image: its entry as a numeric non-root user, its system packages only, its own node_modules`, (t) => {
    const s = stage(role);
    if (!s) return t.fail(`no stage ${role}`);
    t.deepEqual(
      s.lines.filter((l) => l.startsWith('CMD')),
      [`CMD ["node", "dist/${ROLES[role].entry}.js"]`],
    );
    const user = lineage(role)
      .filter((l) => l.startsWith('USER'))
      .at(-1);
    t.regex(user ?? '', /^USER [1-9]\d*(:[1-9]\d*)?$/);
    const apt = aptPackages(role);
    for (const pkg of HEAVY) t.is(apt.includes(pkg), SYSTEM_PACKAGES[role].includes(pkg), `${pkg} in ${role}`);
    t.true(s.lines.includes(`COPY --from=modules-${role} /app/node_modules ./node_modules`));
    t.deepEqual(stage(`modules-${role}`)?.lines, [`RUN node scripts/role-packages.mjs ${role} --prune`]);
  });
}

test('the build prunes the development packages, then builds the workflow bundle the workers load', (t) => {
  const run = stage('build')!.lines.find((l) => l.includes('npm run build'))!;
  const steps = run.replace(/^RUN\s+/, '').split(/\s*&&\s*/);
  t.deepEqual(steps, ['npm run build', 'npm prune --omit=dev --no-audit --no-fund', 'node dist/workers/prebuild-workflow-bundle.js']);
});

test('a build without --target is the API', (t) => {
  t.is(all.at(-1)?.name, 'api');
});

// What each role loads, read from the source the build compiles.
const packagesOf = (role: keyof typeof ROLES) => rolePackages(root, role, { dir: root, ext: '.ts' });

test("the API and the core and network workers load neither Chromium's driver nor the upscaling model", (t) => {
  for (const role of ['api', 'worker-core', 'worker-network'] as const) {
    const loaded = packagesOf(role);
    for (const pkg of [
      'puppeteer-core',
      'puppeteer-cluster',
      '@tensorflow/tfjs',
      '@tensorflow/tfjs-backend-wasm',
      'upscaler',
      '@upscalerjs/default-model',
      'jimp',
    ]) {
      t.false(loaded.has(pkg), `${role} loads ${pkg}`);
    }
  }
});

test("the API loads @temporalio/worker's connection and runtime only: never its workflow bundler", (t) => {
  const api = packagesOf('api');
  t.true(api.has('@temporalio/worker'));
  for (const bundler of ['webpack', '@swc/core', 'swc-loader', 'source-map-loader', 'memfs', 'unionfs']) t.false(api.has(bundler), bundler);
  // A worker imports the package itself: the bundler comes with it (its prebuilt bundle spares it the work, not the load).
  t.true(packagesOf('worker-core').has('webpack'));
});

test("only the core pool's process loads its workers: Stripe and mail stay out of the tool pools", (t) => {
  t.true(packagesOf('worker-core').has('stripe') && packagesOf('worker-core').has('nodemailer'));
  for (const role of ['worker-cpu', 'worker-network', 'worker-browser'] as const)
    for (const pkg of ['stripe', 'nodemailer']) t.false(packagesOf(role).has(pkg), `${role} loads ${pkg}`);
});

test("people's sign-in and a monitor's image comparison stay where they run: not in the core worker, not in the API", (t) => {
  // The core worker sweeps people's records (domain/identity/sweep.ts) but signs nobody in.
  const core = packagesOf('worker-core');
  for (const pkg of ['argon2', '@simplewebauthn/server', 'openid-client', '@zxcvbn-ts/core'])
    t.false(core.has(pkg), `worker-core loads ${pkg}`);
  t.true(packagesOf('api').has('argon2'));
  // Captures are compared in a worker's thread (activities/monitor-diff-thread.ts), never in the API.
  for (const pkg of ['pixelmatch', 'pngjs']) t.false(packagesOf('api').has(pkg), `api loads ${pkg}`);
});

test("each tool pool loads its own tools' packages and not the other pools'", (t) => {
  const cpu = packagesOf('worker-cpu');
  const browser = packagesOf('worker-browser');
  const network = packagesOf('worker-network');
  for (const pkg of ['@tensorflow/tfjs', 'upscaler', '@upscalerjs/default-model', '@upscalerjs/esrgan-slim', 'jimp', 'hash-wasm'])
    t.true(cpu.has(pkg), `cpu: ${pkg}`);
  for (const pkg of ['puppeteer-core', 'puppeteer-cluster']) t.true(browser.has(pkg), `browser: ${pkg}`);
  for (const pkg of ['cheerio', 'pdfjs-dist']) t.true(network.has(pkg), `network: ${pkg}`);
  t.false(cpu.has('puppeteer-core'));
  t.false(browser.has('@tensorflow/tfjs'));
  t.false(network.has('puppeteer-core'));
});

test("each tool pool's process reaches its own tools' handlers in activities/tools/ and no other's; the API and the core worker none", (t) => {
  const handlersOf = (role: keyof typeof ROLES) =>
    [...directPackages(root, role, '.ts').modules]
      .map((file) => path.relative(root, file).split(path.sep).join('/'))
      .filter((file) => file.startsWith('activities/tools/'))
      .map((file) => path.basename(file, '.ts'))
      .sort();
  const namesOf = (pool: 'cpu' | 'network' | 'browser') => toolsOfPool(pool).map((tool) => tool.name);
  for (const pool of ['cpu', 'network', 'browser'] as const) t.deepEqual(handlersOf(`worker-${pool}`), namesOf(pool).sort(), pool);
  t.deepEqual(handlersOf('api'), []);
  t.deepEqual(handlersOf('worker-core'), []);
});

test('every runtime dependency is loaded by some role', (t) => {
  const { dependencies } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const loaded = new Set((Object.keys(ROLES) as (keyof typeof ROLES)[]).flatMap((role) => [...packagesOf(role)]));
  t.deepEqual(
    Object.keys(dependencies).filter((d) => !loaded.has(d)),
    [],
  );
});

test("compose runs each service from its role's image", (t) => {
  const compose = readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
  const targetOf = (service: string) =>
    new RegExp(`^  ${service}:.*\\n(?:    .*\\n)*?    build: \\{ context: \\., target: (\\S+) \\}`, 'm').exec(compose)?.[1];
  t.deepEqual(['api', 'worker-core', 'worker-cpu', 'worker-network', 'worker-browser'].map(targetOf), [
    'api',
    'worker-core',
    'worker-cpu',
    'worker-network',
    'worker-browser',
  ]);
  t.regex(compose, /^ {2}api:\n(?: {4}.*\n)*? {4}deploy:\n {6}replicas: 2$/m, 'two replicas of the one api service');
  t.notRegex(compose, /^\s+build: \.$/m, 'no service builds the image without a target');
});

test('compose runs every role as the image test runs it: uid 1000, a read-only root, /tmp, no capabilities, the sandboxes profile where needed', (t) => {
  const compose = readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
  const app = /^x-app: &app\n((?: {2}.*\n|\n)*?)(?=^\S)/m.exec(compose)?.[1] ?? '';
  for (const setting of ['user: "1000:1000"', 'read_only: true', '- /tmp:size=1g', 'cap_drop: [ALL]', '- no-new-privileges:true'])
    t.true(app.includes(setting), `every app service: ${setting}`);
  const service = (name: string) => new RegExp(`^ {2}${name}:\\n((?: {4}.*\\n|\\n)*)`, 'm').exec(compose)?.[1] ?? '';
  for (const role of ['api', 'worker-core', 'worker-cpu', 'worker-network', 'worker-browser'])
    t.regex(service(role), /<<: \*worker/, `${role} takes the app's settings`);
  t.regex(service('worker-cpu'), /- seccomp=\.\/deploy\/seccomp\/sandboxes\.json/);
  t.regex(service('worker-browser'), /security_opt: \*sandbox-security/);
  t.notRegex(compose, /^\s+(CHROMIUM_SANDBOX|OFFICE_NETWORK_ISOLATION):/m, 'both sandboxes stay on (their defaults)');
});
