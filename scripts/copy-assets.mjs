#!/usr/bin/env node
//! Second half of `npm run build`: tsc emits only JavaScript, so the files the code reads at run
//! time (the API reference's page and overview, the ad host list, the office bridge's Python, the
//! tracing module workflows load) are copied beside it into dist/, paths kept; so is the dashboard
//! (dashboard/, served by api/routes/dashboard.ts from `../../dashboard/`), which has no build.
//! Redoc's standalone bundle (the API reference's script) is copied too, into dist/api/docs/redoc/
//! with its version and licence: redoc is a development dependency, absent from the image.
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ASSET_DIRS, sourceDirs } from './build-if-stale.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

for (const dir of [...sourceDirs(root), ...ASSET_DIRS]) {
  for (const entry of readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
    const from = path.join(entry.parentPath, entry.name);
    cpSync(from, path.join(root, 'dist', path.relative(root, from)));
  }
}

// What api/routes/docs.ts reads from the build (BUILT_RENDERER_DIR).
const require = createRequire(import.meta.url);
const redoc = path.dirname(require.resolve('redoc/package.json'));
const rendererDir = path.join(root, 'dist', 'api', 'docs', 'redoc');
mkdirSync(rendererDir, { recursive: true });
cpSync(path.join(redoc, 'bundles', 'redoc.standalone.js'), path.join(rendererDir, 'redoc.standalone.js'));
cpSync(path.join(redoc, 'LICENSE'), path.join(rendererDir, 'LICENSE'));
const { version } = JSON.parse(readFileSync(path.join(redoc, 'package.json'), 'utf8'));
writeFileSync(path.join(rendererDir, 'version.json'), `${JSON.stringify({ version })}\n`);
