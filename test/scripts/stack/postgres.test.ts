//! The cluster's PostgreSQL (scripts/stack/postgres.ts) starts from a checkout that its user may
//! not enter, without opening the checkout's folders, and a failure to start is one line.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../scripts/stack/net.js';
import { startPostgres } from '../../../scripts/stack/postgres.js';
import { Supervisor } from '../../../scripts/stack/supervisor.js';

const { postgresBinDir } = (await import(new URL('../../../scripts/bootstrap-cluster.mjs', import.meta.url).href)) as {
  postgresBinDir: () => Promise<string>;
};
// Debian's postgresql package comes with the cluster's bootstrap, not npm test's.
const binDir = await postgresBinDir().catch(() => undefined);
const withPostgres = binDir ? test.serial : test.serial.skip;
const asRoot = process.getuid?.() === 0;

/** A checkout inside a fresh `mktemp -d` folder (mode 0700), as a user's clone under /root or a private folder. */
function privateCheckout(t: { teardown(fn: () => void): void }): { parent: string; checkout: string } {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'ut-private-'));
  t.teardown(() => rmSync(parent, { recursive: true, force: true }));
  const checkout = path.join(parent, 'uc');
  mkdirSync(checkout);
  return { parent, checkout };
}

withPostgres(
  'PostgreSQL starts from a checkout under a 0700 folder, answers queries, leaves the folder closed and its throwaway data removed',
  async (t) => {
    const { parent, checkout } = privateCheckout(t);
    t.is(statSync(parent).mode & 0o777, 0o700);
    const dataDir = path.join(checkout, 'test-output', 'run', 'data', 'postgres');
    const supervisor = new Supervisor();
    t.teardown(() => supervisor.stopAll());

    const postgres = await startPostgres(supervisor, {
      binDir: binDir!,
      dataDir,
      port: await freePort(),
      user: 'temporal',
      throwaway: true,
    });
    const answer = execFileSync(
      path.join(binDir!, 'psql'),
      ['-h', postgres.host, '-p', String(postgres.port), '-U', 'temporal', '-d', 'postgres', '-Atc', 'select 40 + 2'],
      { encoding: 'utf8' },
    );
    t.is(answer.trim(), '42');

    t.is(statSync(parent).mode & 0o777, 0o700, 'the private folder is not opened');
    if (asRoot) {
      // Run as `postgres`, it keeps its data where that user may go; the checkout links to it.
      t.false(postgres.dataDir.startsWith(`${parent}${path.sep}`));
      const data = statSync(postgres.dataDir);
      t.is(data.uid, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })));
      t.is(data.mode & 0o777, 0o700);
      t.true(lstatSync(dataDir).isSymbolicLink());
      t.is(readlinkSync(dataDir), postgres.dataDir);
    } else {
      t.is(postgres.dataDir, dataDir);
    }

    await supervisor.stopAll();
    if (asRoot) t.false(existsSync(postgres.dataDir), 'a throwaway run leaves no data behind');
  },
);

withPostgres('a PostgreSQL that cannot start says so in one line: which part, why, what to do', async (t) => {
  const { checkout } = privateCheckout(t);
  const supervisor = new Supervisor();
  t.teardown(() => supervisor.stopAll());
  const dataDir = path.join(checkout, '.data', 'cluster', 'postgres');
  // An initdb that fails as a full disk would, in a folder `postgres` may enter.
  const brokenBin = mkdtempSync(path.join(os.tmpdir(), 'ut-bin-'));
  t.teardown(() => rmSync(brokenBin, { recursive: true, force: true }));
  chmodSync(brokenBin, 0o755);
  for (const name of ['postgres', 'pg_isready']) symlinkSync(path.join(binDir!, name), path.join(brokenBin, name));
  writeFileSync(
    path.join(brokenBin, 'initdb'),
    '#!/bin/sh\necho "initdb: error: could not create directory: No space left on device" >&2\nexit 1\n',
    { mode: 0o755 },
  );

  const err = await t.throwsAsync(
    startPostgres(supervisor, { binDir: brokenBin, dataDir, port: await freePort(), user: 'temporal', throwaway: true }),
  );
  t.log(err!.message);
  t.notRegex(err!.message, /\n/);
  t.notRegex(err!.message, /Buffer|Command failed/);
  t.regex(err!.message, /^PostgreSQL did not start: .*No space left on device.*; /);
});
