#!/usr/bin/env node
//! Second half of `npm run build`: tsc emits only JavaScript, so the files the code reads at run
//! time (tool schemas, docs) are copied beside it into dist/, paths kept; so is the dashboard
//! (dashboard/, served by api/routes/dashboard.ts from `../../dashboard/`), which has no build.
import { cpSync, readdirSync } from 'node:fs';
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
