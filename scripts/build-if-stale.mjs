//! `npm run build` when dist/ is older than the sources it is compiled from (or missing), so the
//! production-shaped stack always runs the current code, compiled as the image compiles it.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The folders the build compiles: tsconfig.build.json's `include`, the one list (copy-assets.mjs reads it too). */
export function sourceDirs(root) {
  return JSON.parse(readFileSync(path.join(root, 'tsconfig.build.json'), 'utf8')).include;
}

/** The folders the build copies into dist/ as they are: the dashboard's page, plain ES modules with no build. */
export const ASSET_DIRS = ['dashboard'];

function newestMtime(root) {
  let newest = 0;
  for (const source of [...sourceDirs(root), ...ASSET_DIRS, 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json']) {
    const full = path.join(root, source);
    if (!existsSync(full)) continue;
    const files = statSync(full).isDirectory() ? readdirSync(full, { recursive: true }).map((f) => path.join(full, f)) : [full];
    for (const file of files) newest = Math.max(newest, statSync(file).mtimeMs);
  }
  return newest;
}

/** Builds when needed; a stamp in dist/ records a build that finished. */
export async function buildIfStale(root, log = (line) => console.log(`build: ${line}`)) {
  const stamp = path.join(root, 'dist', '.built');
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= newestMtime(root)) return;
  log('compiling the service into dist/ (npm run build)');
  const started = Date.now();
  const code = await new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`npm run build failed (exit ${code})`);
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
