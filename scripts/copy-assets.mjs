#!/usr/bin/env node
//! Second half of `npm run build`: tsc emits only JavaScript, so the files the code reads at run
//! time (tool schemas, docs, the dashboard's assets) are copied beside it into dist/, paths kept.
import { cpSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceDirs } from './build-if-stale.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

for (const dir of sourceDirs(root)) {
  for (const entry of readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
    const from = path.join(entry.parentPath, entry.name);
    cpSync(from, path.join(root, 'dist', path.relative(root, from)));
  }
}
