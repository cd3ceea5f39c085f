#!/usr/bin/env node
//! `npm run test:images`: the service's role images built and run as real containers. Installs
//! what it needs (bootstrap.mjs; Debian's Docker Engine, started here when none runs and stopped
//! again at the end), makes the local base (scripts/images/base-image.mjs), builds the five targets,
//! starts the test stack's infrastructure as processes and the service as containers
//! (scripts/images/test-stack.ts), runs test/images/ with ava, and ends with one line:
//! `images: 5 built (api <a> MB, core <b> MB, cpu <c> MB, network <d> MB, browser <e> MB), <n>/<n> calls through containers charged once, <s> s`.
//! Not part of `npm test`: the first build takes minutes, and a container engine on the host
//! disturbs the browser tests running beside it. Runs as root (the engine does).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootstrap } from './bootstrap.mjs';
import { ensureBaseImage } from './images/base-image.mjs';
import { buildImages } from './images/build-images.mjs';
import { ensureDockerEngine } from './images/docker-engine.mjs';
import { PROFILE_FILE, generatedProfileText } from './images/seccomp-profile.mjs';
import { onPinnedNode } from './pinned-node.mjs';
import { exitingOnFailure, newRunDir } from './test-runs.mjs';

await onPinnedNode();

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
const seconds = () => ((Date.now() - started) / 1000).toFixed(0);
const log = (line) => console.log(`npm run test:images: ${line}`);
const prepare = exitingOnFailure('npm run test:images');

const tools = await prepare(() => bootstrap({ root }));
const runDir = newRunDir(path.join(root, 'test-output'), 'images');
const logDir = path.join(runDir, 'logs');
mkdirSync(logDir, { recursive: true });
log(`logs in ${path.relative(process.cwd(), logDir)}/`);

const engine = await prepare(() => ensureDockerEngine({ logDir, log }));
const { tsImport } = await import('tsx/esm/api');
const stackModule = await tsImport('./stack/index.ts', import.meta.url);
const { startImageStack } = await tsImport('./images/test-stack.ts', import.meta.url);
const { containerLogs, removeContainer } = await tsImport('./images/containers.ts', import.meta.url);
const supervisor = new stackModule.Supervisor({ logDir });

async function finish(code) {
  // Every container this run started, also when the start failed half way (containers.json is written first).
  const started = path.join(runDir, 'containers.json');
  for (const c of existsSync(started) ? Object.values(JSON.parse(readFileSync(started, 'utf8'))) : []) {
    writeFileSync(path.join(logDir, `${c.name}.log`), await containerLogs(c.name, 100_000));
    await removeContainer(c.name);
  }
  await supervisor.stopAll();
  await engine.stop();
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void finish(130));

try {
  // The sandboxes' seccomp profile is what its recipe makes from the engine's own default.
  if (readFileSync(PROFILE_FILE, 'utf8') !== (await generatedProfileText()))
    throw new Error('deploy/seccomp/sandboxes.json is not what scripts/images/seccomp-profile.mjs makes: run it and commit the file');
  const base = await ensureBaseImage({ workDir: runDir, log });
  const buildStarted = Date.now();
  const images = await buildImages({ root, base: base.tag, tag: 'local', log });
  log(`built the five images in ${((Date.now() - buildStarted) / 1000).toFixed(0)} s (base ${base.made ? 'made' : 'reused'}: ${base.tag})`);
  writeFileSync(path.join(runDir, 'images.json'), JSON.stringify(images, null, 2));

  const stack = await startImageStack(supervisor, { root, runDir, tools, images });
  const restarted = (c) => (c.restarts ? ` (started again ${c.restarts} times)` : '');
  log(`containers ready: ${stack.containers.map((c) => `${c.role} ${(c.readyMs / 1000).toFixed(1)} s${restarted(c)}`).join(', ')}`);

  const results = path.join(runDir, 'calls.jsonl');
  const ava = supervisor.start({
    name: 'ava',
    command: path.join(root, 'node_modules', '.bin', 'ava'),
    args: ['--config', 'ava.images.config.mjs', ...process.argv.slice(2)],
    cwd: root,
    layer: 2,
    oneShot: true,
    passthrough: true,
    env: {
      ...process.env,
      API_URL: stack.apiUrl,
      ADMIN_TOKEN: stack.adminToken,
      MONGODB_URL: stack.mongodbUrl,
      TEMPORAL_ADDRESS: stack.temporalAddress,
      FIXTURES_JSON: JSON.stringify(stack.fixtures),
      MAIL_API_URL: stack.mailApiUrl,
      TEST_OUTPUT_DIR: runDir,
      IMAGES_JSON: JSON.stringify(images),
      CONTAINERS_JSON: path.join(runDir, 'containers.json'),
      IMAGES_RESULTS: results,
    },
  });
  const { code } = await ava.exited;
  if (code === 0 && existsSync(results)) {
    // One JSON line per call the suites made (test/images/containers.test.ts).
    const calls = readFileSync(results, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const mb = (role) => (images.find((i) => i.role === role).bytes / 1e6).toFixed(0);
    const once = calls.filter((c) => c.chargedOnce).length;
    console.log(
      `\nimages: 5 built (api ${mb('api')} MB, core ${mb('worker-core')} MB, cpu ${mb('worker-cpu')} MB, network ${mb('worker-network')} MB, browser ${mb('worker-browser')} MB), ${once}/${calls.length} calls through containers charged once, ${seconds()} s`,
    );
  }
  await finish(code ?? 1);
} catch (err) {
  console.error(`\nnpm run test:images: ${err.message}`);
  await finish(1);
}
