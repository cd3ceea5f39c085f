//! Where the cluster's PostgreSQL data lives when it runs as another user (scripts/stack/postgres-data.ts):
//! outside the checkout, linked from it, moved there from an earlier start, deleted once its link is gone.
import test from 'ava';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { placePostgresData } from '../../../scripts/stack/postgres-data.js';

const self = { uid: process.getuid!(), gid: process.getgid!() };

function folders(t: { teardown(fn: () => void): void }) {
  const base = mkdtempSync(path.join(os.tmpdir(), 'ut-pgdata-'));
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  return { systemRoot: path.join(base, 'system'), checkout: path.join(base, 'checkout') };
}

test('the data lives under the system folder, private, and the checkout links to it; a second start finds the same', (t) => {
  const { systemRoot, checkout } = folders(t);
  const link = path.join(checkout, '.data', 'cluster', 'postgres');
  const first = placePostgresData(link, self, systemRoot);
  t.true(first.dir.startsWith(`${systemRoot}${path.sep}`));
  t.is(statSync(first.dir).mode & 0o777, 0o700);
  t.is(readlinkSync(link), first.dir);
  t.is(readFileSync(path.join(path.dirname(first.dir), 'checkout'), 'utf8').trim(), link);
  writeFileSync(path.join(first.dir, 'PG_VERSION'), '15\n');
  t.is(placePostgresData(link, self, systemRoot).dir, first.dir);
  t.true(existsSync(path.join(first.dir, 'PG_VERSION')));
});

test('run as ourselves, the data stays in the checkout', (t) => {
  const { systemRoot, checkout } = folders(t);
  const dir = path.join(checkout, '.data', 'cluster', 'postgres');
  t.is(placePostgresData(dir, undefined, systemRoot).dir, dir);
  t.false(existsSync(systemRoot));
});

test('data whose link is gone (a pruned run) is deleted by the next start; a throwaway run deletes its own', (t) => {
  const { systemRoot, checkout } = folders(t);
  const run = path.join(checkout, 'test-output', 'cluster-1');
  const pruned = placePostgresData(path.join(run, 'data', 'postgres'), self, systemRoot);
  const kept = placePostgresData(path.join(checkout, '.data', 'cluster', 'postgres'), self, systemRoot);
  rmSync(run, { recursive: true });
  const next = placePostgresData(path.join(checkout, 'test-output', 'cluster-2', 'data', 'postgres'), self, systemRoot);
  t.false(existsSync(pruned.dir));
  t.true(existsSync(kept.dir));
  next.remove();
  t.false(existsSync(path.dirname(next.dir)));
});

test('a cluster made in the checkout by an earlier start moves out and stays linked; an empty leftover is replaced', (t) => {
  const { systemRoot, checkout } = folders(t);
  const earlier = path.join(checkout, '.data', 'cluster', 'postgres');
  mkdirSync(earlier, { recursive: true });
  writeFileSync(path.join(earlier, 'PG_VERSION'), '15\n');
  const moved = placePostgresData(earlier, self, systemRoot);
  t.true(lstatSync(earlier).isSymbolicLink());
  t.is(readFileSync(path.join(moved.dir, 'PG_VERSION'), 'utf8'), '15\n');

  const failed = path.join(checkout, 'test-output', 'bench-cluster-1', 'data', 'postgres');
  mkdirSync(failed, { recursive: true });
  t.true(lstatSync(placePostgresData(failed, self, systemRoot).dir).isDirectory());
  t.true(lstatSync(failed).isSymbolicLink());
});
