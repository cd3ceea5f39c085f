//! Where the cluster's PostgreSQL keeps its data. Run as ourselves, in the checkout, at the path
//! it is given (`.data/cluster/postgres`, a test run's `data/postgres`). Started by root it runs
//! as `postgres`, a user that may not enter the checkout (a clone under /root or in a 0700
//! folder), and a user's folders are not ours to open: its data then lives in a folder of its
//! own, `/var/lib/utility-tools/<hash of that path>/postgres` (0700, owned by `postgres`), and
//! the path in the checkout is a symbolic link to it. A `checkout` file beside the data names the
//! link; once the link is gone (a pruned test run, a deleted clone or `.data`), the next start of
//! any checkout deletes that data.
import { createHash } from 'node:crypto';
import {
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { StartError } from './start-error.js';

/** Where the data of each checkout's PostgreSQL lives when root starts it. */
export const SYSTEM_DATA_ROOT = '/var/lib/utility-tools';

export interface UnixUser {
  uid: number;
  gid: number;
}

export interface PostgresData {
  /** The data directory PostgreSQL runs on. */
  dir: string;
  /** Deletes the data when it lives outside the checkout (the end of a throwaway run); otherwise nothing. */
  remove(): void;
}

const PART = 'PostgreSQL';

/**
 * The data directory for the cluster whose data the checkout keeps at `checkoutDir`, ready for
 * initdb (created, owned by `runAs`) or holding the cluster of an earlier start.
 * @param runAs the user PostgreSQL runs as when it is not us (we are root); undefined: ourselves.
 * @param systemRoot where relocated data lives. Default SYSTEM_DATA_ROOT; tests may pass another.
 */
export function placePostgresData(checkoutDir: string, runAs: UnixUser | undefined, systemRoot = SYSTEM_DATA_ROOT): PostgresData {
  const parent = path.dirname(checkoutDir);
  mkdirSync(parent, { recursive: true });
  if (!runAs) return { dir: checkoutDir, remove() {} };

  const link = path.join(realpathSync(parent), path.basename(checkoutDir));
  const home = path.join(systemRoot, createHash('sha256').update(link).digest('hex').slice(0, 16));
  const dir = path.join(home, 'postgres');
  try {
    mkdirSync(systemRoot, { recursive: true, mode: 0o755 });
  } catch (err) {
    throw new StartError(
      PART,
      `cannot create ${systemRoot}, where its data lives when started by root (${(err as NodeJS.ErrnoException).code})`,
      `make ${systemRoot} a folder root may write and the postgres user may enter`,
      { cause: err },
    );
  }

  adoptEarlierData(link, home, dir);
  // The link before the `checkout` file: pruning by a concurrent start never finds the file without its link.
  const current = lstatOrUndefined(link);
  if (current?.isSymbolicLink() && readlinkSync(link) !== dir) unlinkSync(link); // a copied checkout's link
  if (!lstatOrUndefined(link)) symlinkSync(dir, link);
  mkdirSync(home, { recursive: true, mode: 0o755 });
  writeFileSync(path.join(home, 'checkout'), `${link}\n`);
  if (!existsSync(dir)) {
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, runAs.uid, runAs.gid);
  }
  pruneOrphans(systemRoot, home);
  return { dir, remove: () => rmSync(home, { recursive: true, force: true }) };
}

function lstatOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/**
 * A real directory where the link goes: a cluster made in the checkout before its data moved out
 * (moved to its new place), or what a failed start left (deleted when empty).
 */
function adoptEarlierData(link: string, home: string, dir: string): void {
  if (!lstatOrUndefined(link)?.isDirectory()) return;
  if (!existsSync(path.join(link, 'PG_VERSION'))) {
    try {
      rmdirSync(link);
      return;
    } catch {
      throw new StartError(
        PART,
        `${link} holds files but no PostgreSQL cluster`,
        'move it away (PostgreSQL starts afresh) and start again',
      );
    }
  }
  if (existsSync(path.join(dir, 'PG_VERSION'))) {
    throw new StartError(
      PART,
      `there are two clusters for this checkout, ${link} and ${dir}`,
      `keep one: delete or move the other and start again`,
    );
  }
  mkdirSync(home, { recursive: true, mode: 0o755 });
  rmSync(dir, { recursive: true, force: true });
  try {
    renameSync(link, dir);
  } catch (err) {
    throw new StartError(
      PART,
      `cannot move its data from ${link} to ${dir} (${(err as NodeJS.ErrnoException).code})`,
      `move it there yourself (mv ${link} ${dir}) and start again`,
      { cause: err },
    );
  }
}

/** Deletes the data of checkouts whose link is gone or points elsewhere. */
function pruneOrphans(systemRoot: string, keep: string): void {
  for (const name of readdirSync(systemRoot)) {
    const home = path.join(systemRoot, name);
    if (home === keep) continue;
    let link: string;
    try {
      link = readFileSync(path.join(home, 'checkout'), 'utf8').trim();
    } catch {
      continue; // being created, or not ours
    }
    const dir = path.join(home, 'postgres');
    const linked = lstatOrUndefined(link)?.isSymbolicLink() && readlinkSync(link) === dir;
    if (!linked) rmSync(home, { recursive: true, force: true });
  }
}
