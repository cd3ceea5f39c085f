//! The database's WiredTiger settings (scripts/stack/services.ts): its memory stops following its
//! data (clean pages are evicted down to a few megabytes, where without the settings the cache keeps
//! all it read), and writers never wait forever on eviction (a large document updated by many
//! connections at once stalled the whole server under a 16M ceiling).
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { freePort } from '../../../scripts/stack/net.js';
import { DATABASE_CACHE_SIZE, WIREDTIGER_SETTINGS, startDatabase } from '../../../scripts/stack/services.js';
import { Supervisor } from '../../../scripts/stack/supervisor.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const PYTHON = path.join(ROOT, '.tools', 'secantus', 'bin', 'python3');
const SECANTUSD = path.join(ROOT, '.tools', 'secantus', 'bin', 'secantusd-py');

test('the cache keeps a few megabytes of clean pages, not all the pages that were read', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wiredtiger-settings-'));
  try {
    const [settings, none] = [path.join(dir, 'settings'), path.join(dir, 'none')];
    mkdirSync(settings);
    mkdirSync(none);
    writeFileSync(path.join(settings, 'WiredTiger.config'), WIREDTIGER_SETTINGS);
    // Eviction runs in WiredTiger's background threads: a generous bound on waiting for them, never a verdict on their pace.
    const held = JSON.parse(
      execFileSync(PYTHON, [path.join(import.meta.dirname, 'wiredtiger-settings.py'), settings, none, DATABASE_CACHE_SIZE, '5', '120'], {
        encoding: 'utf8',
      }),
    );
    // 8 MB read back: the default keeps it all (up to 80% of the ceiling), the stack's settings about 4 MB.
    t.true(held.none > 7, `without the settings the cache held ${held.none.toFixed(3)} MB`);
    t.true(held.settings < 5, `with the settings the cache held ${held.settings.toFixed(3)} MB`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * No write answered for this long while writes are outstanding, and the server neither working nor
 * waiting on the disk meanwhile: it is stuck, not slow. A write takes milliseconds; the 16M
 * ceiling's stalls lasted about a minute, then came back, with the server idle. On a starved
 * machine 32 writers sharing the server's one interpreter can all be under way for longer without
 * one finishing while the server works (STUCK_CPU_S of CPU or more), and on a shared disk each
 * journaled write can wait that long for its flush (a thread of the server in uninterruptible
 * sleep, or its bytes reaching storage): that is pace, which no verdict here may judge.
 */
const STUCK_MS = 20_000;
const STUCK_CPU_S = 2;

/** Seconds of CPU the process `pid` has used (user and system), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
/** The kernel's clock ticks a second for /proc's CPU times (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = 100;

/** Bytes the process `pid` has sent to storage so far, from /proc. */
function storageWrites(pid: number): number {
  return Number(/^write_bytes: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
}

/** Whether a thread of the process `pid` is waiting on the disk right now (state D). */
function waitingOnDisk(pid: number): boolean {
  return readdirSync(`/proc/${pid}/task`).some((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.startsWith('D');
    } catch {
      return false; // the thread ended meanwhile
    }
  });
}

/** What the server did since a mark: CPU, storage writes, and whether it was seen waiting on the disk. */
function activitySince(pid: number) {
  const [cpu, written] = [cpuSeconds(pid), storageWrites(pid)];
  let sawDiskWait = false;
  return {
    sample: () => {
      sawDiskWait ||= waitingOnDisk(pid);
    },
    describe: () => {
      const worked = cpuSeconds(pid) - cpu;
      const wrote = storageWrites(pid) - written;
      return { busy: worked >= STUCK_CPU_S || wrote > 0 || sawDiskWait, text: `${worked.toFixed(2)} s of CPU, ${wrote} bytes to storage` };
    },
  };
}

/**
 * Concurrent journaled updates of one document of `kb` KiB (an account with many grants and holds
 * is such a document), `writers` at a time, against the stack's own database server. Resolves with
 * the writes done; rejects when none was answered for STUCK_MS.
 */
async function updateConcurrently(url: string, serverPid: number, kb: number, writers: number, writes: number): Promise<number> {
  const client = new MongoClient(url, { maxPoolSize: writers });
  const docs = client
    .db()
    .collection<{ _id: string; balance: number; lots: Record<string, unknown> }>('accounts', { writeConcern: { w: 1, journal: true } });
  let done = 0;
  let stuck: NodeJS.Timeout | undefined;
  try {
    const lots = Object.fromEntries(
      Array.from({ length: kb * 10 }, (_, i) => [`grt_${String(i).padStart(20, '0')}`, { remaining: 1000, expiresAt: null }]),
    );
    await docs.insertOne({ _id: 'acc', balance: writes, lots });
    let answeredAt = Date.now();
    let activity = activitySince(serverPid);
    const stalled = new Promise<never>((_, reject) => {
      stuck = setInterval(() => {
        activity.sample();
        if (Date.now() - answeredAt <= STUCK_MS) return;
        const { busy, text } = activity.describe();
        if (!busy)
          reject(new Error(`no write answered for ${STUCK_MS / 1000} s with the server idle (${text}), after ${done} of ${writes}`));
        // Working or waiting on the disk, not stuck: the window starts again.
        else [answeredAt, activity] = [Date.now(), activitySince(serverPid)];
      }, 1_000);
    });
    let next = 0;
    const writing = Promise.all(
      Array.from({ length: writers }, async () => {
        for (let i = next++; i < writes; i = next++) {
          await docs.findOneAndUpdate(
            { _id: 'acc', balance: { $gte: 1 } },
            { $inc: { balance: -1 }, $set: { [`holds.h${i % 50}`]: { at: new Date(), cost: 1 } } },
            { projection: { balance: 1 } },
          );
          done += 1;
          answeredAt = Date.now();
          activity = activitySince(serverPid);
        }
      }),
    );
    await Promise.race([writing, stalled]);
    await client.close();
    return done;
  } catch (err) {
    // A stuck server answers no endSessions either: the supervisor's stop ends these connections.
    void client.close(true).catch(() => undefined);
    throw err;
  } finally {
    clearInterval(stuck);
  }
}

test.serial('large documents updated by many connections at once never stall the server', async (t) => {
  // The writes' own time is not judged, only a stall: room for a slow machine to finish them.
  t.timeout(10 * 60_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wiredtiger-stall-'));
  const supervisor = new Supervisor();
  t.teardown(async () => {
    await supervisor.stopAll();
    rmSync(dir, { recursive: true, force: true });
  });
  const database = await startDatabase(supervisor, { binary: SECANTUSD, port: await freePort(), dir: path.join(dir, 'db') });
  // Under a 16M ceiling the first stopped every run after ~400 writes, for about a minute at a time; under 64M, the second.
  const pid = database.process.pid!;
  t.is(await updateConcurrently(database.url, pid, 50, 8, 1_000), 1_000);
  t.is(await updateConcurrently(database.url.replace('/utility_tools', '/second'), pid, 400, 32, 300), 300);
});
