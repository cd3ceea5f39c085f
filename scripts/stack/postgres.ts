//! A PostgreSQL cluster of the stack's own (Temporal's persistence and visibility): created with
//! initdb on first use in its data directory, run in the foreground under the supervisor, on
//! 127.0.0.1 only. PostgreSQL refuses to run as root: as root it runs as the `postgres` user.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertPortFree, waitUntil } from './net.js';
import type { ManagedProcess, Supervisor } from './supervisor.js';

export interface PostgresOptions {
  /** Folder of initdb, postgres and pg_isready (Debian: /usr/lib/postgresql/<major>/bin). */
  binDir: string;
  /** Data directory; created with initdb when it holds no cluster yet, reused otherwise. */
  dataDir: string;
  port: number;
  /** The superuser Temporal connects as (trust authentication, local connections only). */
  user: string;
  timeoutMs?: number;
}

export interface RunningPostgres {
  host: string;
  port: number;
  user: string;
  process: ManagedProcess;
}

/** Who runs the cluster: ourselves, or `postgres` when we are root. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function initCluster(options: PostgresOptions, user: { uid: number; gid: number } | undefined): void {
  if (existsSync(path.join(options.dataDir, 'PG_VERSION'))) return;
  // Only the data directory itself is private (PostgreSQL insists); its parents stay traversable.
  mkdirSync(path.dirname(options.dataDir), { recursive: true });
  mkdirSync(options.dataDir, { mode: 0o700 });
  if (user) chownSync(options.dataDir, user.uid, user.gid);
  execFileSync(
    path.join(options.binDir, 'initdb'),
    ['-D', options.dataDir, '-U', options.user, '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8'],
    { stdio: 'pipe', cwd: os.tmpdir(), ...user },
  );
}

/** Settings on the command line, so a reused data directory runs exactly as configured here. */
function serverArgs(options: PostgresOptions): string[] {
  const settings: Record<string, string> = {
    port: String(options.port),
    listen_addresses: '127.0.0.1',
    unix_socket_directories: '', // TCP only: no socket folder to own
    max_connections: '200', // each Temporal service keeps its own pools
    shared_buffers: '128MB',
    // Temporal writes a little on every workflow step; a crash may lose the last few hundred ms
    // of commits, never consistency (the data directory survives SIGKILL either way).
    synchronous_commit: 'off',
    log_min_messages: 'warning',
  };
  return ['-D', options.dataDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
}

export async function startPostgres(supervisor: Supervisor, options: PostgresOptions): Promise<RunningPostgres> {
  await assertPortFree(options.port, 'PostgreSQL');
  const user = runAs();
  initCluster(options, user);
  const proc = supervisor.start({
    name: 'postgres',
    command: path.join(options.binDir, 'postgres'),
    args: serverArgs(options),
    cwd: os.tmpdir(),
    layer: -1, // stops after Temporal, which holds connections to it
    stopSignal: 'SIGINT', // fast shutdown: SIGTERM would wait for every client to leave
    stopTimeoutMs: 20_000,
    user,
  });
  const running = { host: '127.0.0.1', port: options.port, user: options.user, process: proc };
  await waitUntil(
    async () => {
      execFileSync(path.join(options.binDir, 'pg_isready'), ['-h', running.host, '-p', String(running.port), '-q'], { stdio: 'ignore' });
      return true;
    },
    { what: `PostgreSQL on port ${options.port}`, timeoutMs: options.timeoutMs ?? 60_000, processes: [proc] },
  );
  return running;
}
