//! A lock file: one holder at a time of something installed or built into `.tools/` (an install,
//! Node, Jaeger), the holder's pid inside so that a lock left by a killed run is taken over. Node
//! built-ins only, because it runs before `node_modules` exists.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A lock file younger than this without a pid in it is being written, not abandoned. */
const LOCK_WRITE_GRACE_MS = 10_000;

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/**
 * Runs `fn` holding the lock file `file` (the holder's pid inside), one holder at a time; the
 * others wait, saying once what for (`waitingFor`). A lock whose holder has died is taken over,
 * so a killed run never blocks the next one.
 */
export async function withLockFile(file, log, waitingFor, fn) {
  mkdirSync(path.dirname(file), { recursive: true });
  let announced = false;
  for (;;) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    let holder = 0;
    let age = 0;
    try {
      holder = Number(readFileSync(file, 'utf8')) || 0;
      age = Date.now() - statSync(file).mtimeMs;
    } catch {
      continue; // released between our attempt and the read
    }
    if (holder ? !processAlive(holder) : age > LOCK_WRITE_GRACE_MS) {
      rmSync(file, { force: true });
      continue;
    }
    if (!announced) log(`waiting for ${waitingFor} (pid ${holder || 'starting'}) to finish`);
    announced = true;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}
