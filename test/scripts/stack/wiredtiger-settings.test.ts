//! The database's memory stops following its data: with the WiredTiger settings the stack writes
//! into its home (scripts/stack/services.ts), clean pages are evicted down to a fifth of the cache,
//! where without them the cache keeps all it read until four fifths.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WIREDTIGER_SETTINGS } from '../../../scripts/stack/services.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const PYTHON = path.join(ROOT, '.tools', 'secantus', 'bin', 'python3');

test("the cache keeps a fifth of its ceiling, not all the pages that were read", (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wiredtiger-settings-'));
  try {
    const [settings, none] = [path.join(dir, 'settings'), path.join(dir, 'none')];
    mkdirSync(settings);
    mkdirSync(none);
    writeFileSync(path.join(settings, 'WiredTiger.config'), WIREDTIGER_SETTINGS);
    // Eviction runs in WiredTiger's background threads: a generous bound on waiting for them, never a verdict on their pace.
    const held = JSON.parse(execFileSync(PYTHON, [path.join(import.meta.dirname, 'wiredtiger-settings.py'), settings, none, '120'], { encoding: 'utf8' }));
    // 8 MB read back: the default keeps it (up to 80% of 16M), the stack's settings a fifth (3.2 MB).
    t.true(held.none > 6, `without the settings the cache held ${held.none} MB`);
    t.true(held.settings < 4, `with the settings the cache held ${held.settings} MB`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
