//! The lockfile is one `npm ci` accepts: bootstrap installs with `npm ci` only, so a fresh
//! machine gets exactly the locked tree or fails loudly, never a quietly re-resolved one.
import test from 'ava';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '../..');

interface LockedPackage {
  version?: string;
  optionalDependencies?: Record<string, string>;
}

test("every optional package of every locked package is itself locked (every platform's, not just this one's)", (t) => {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockedPackage> };
  const missing: string[] = [];
  for (const [where, pkg] of Object.entries(lock.packages)) {
    for (const name of Object.keys(pkg.optionalDependencies ?? {})) {
      // npm resolves a dependency in the package's own node_modules first, then up the tree.
      const candidates = [`${where ? `${where}/` : ''}node_modules/${name}`, `node_modules/${name}`];
      if (!candidates.some((c) => lock.packages[c])) missing.push(`${name} (of ${where || 'the root'})`);
    }
  }
  t.deepEqual(missing, []);
});

test('npm ci accepts the lockfile as it is', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lockfile-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(path.join(root, file), path.join(dir, file));
  // --dry-run checks the lockfile against package.json and plans the install without fetching.
  const npmCi = promisify(execFile)('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: dir,
    env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });
  await t.notThrowsAsync(npmCi);
});
