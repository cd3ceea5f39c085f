//! A pool's threads start when its `startAfter` settles or for its first task, not before: a
//! worker process polls before its threads load their libraries (lib/thread-pool.ts). Counted by
//! the process's own threads (Linux: /proc/self/status), so the files run one test at a time.
import { readFile } from 'node:fs/promises';
import { pbkdf2Sync } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { createHashingPool } from '../../activities/cpu/hashing-pool.js';

const threads = async () => Number(/Threads:\s+(\d+)/.exec(await readFile('/proc/self/status', 'utf8'))![1]);

test.before(async () => {
  // libuv's threads start at the first file read: before any count is taken.
  await readFile(new URL(import.meta.url));
  pbkdf2Sync('warm', 'up', 1, 32, 'sha256');
});

test.serial('threads waiting for startAfter are not started until it settles, then all start', async (t) => {
  let start!: () => void;
  const pool = createHashingPool({ threads: 2, startAfter: new Promise<void>((resolve) => (start = resolve)) });
  t.teardown(() => pool.close());
  const before = await threads();
  await sleep(200);
  t.is(await threads(), before, 'none started while waiting');
  start();
  const deadline = Date.now() + 30_000;
  while ((await threads()) < before + 2 && Date.now() < deadline) await sleep(20);
  t.true((await threads()) >= before + 2, 'both threads started once it settled');
});

test.serial('a pool whose start never comes starts its threads for its first task and answers it', async (t) => {
  const pool = createHashingPool({ threads: 1, startAfter: new Promise(() => {}) });
  t.teardown(() => pool.close());
  const before = await threads();
  t.regex(await pool.bcryptHash('first call', 4), /^\$2a\$04\$/);
  t.true((await threads()) > before);
});

test.serial('a pool closed before its start starts nothing', async (t) => {
  let start!: () => void;
  const pool = createHashingPool({ threads: 2, startAfter: new Promise<void>((resolve) => (start = resolve)) });
  const before = await threads();
  await pool.close();
  start();
  await sleep(200);
  t.is(await threads(), before);
});
