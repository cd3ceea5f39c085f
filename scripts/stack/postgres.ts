//! A PostgreSQL cluster of the stack's own (Temporal's persistence and visibility): created with
//! initdb on first use in its data directory, run in the foreground under the supervisor, on
//! 127.0.0.1 only. PostgreSQL refuses to run as root: as root it runs as the `postgres` user,
//! its data where that user may go (postgres-data.ts). It reads nothing else of the checkout: no
//! config file, no socket folder, its output goes to the supervisor through a pipe.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertPortFree, waitUntil } from './net.js';
import { placePostgresData, type UnixUser } from './postgres-data.js';
import { reasonOf, StartError, startingPart } from './start-error.js';
import type { ManagedProcess, Supervisor } from './supervisor.js';

export interface PostgresOptions {
  /** Folder of initdb, postgres and pg_isready (Debian: /usr/lib/postgresql/<major>/bin). */
  binDir: string;
  /**
   * The checkout's path for the data; created with initdb when it holds no cluster yet, reused
   * otherwise. Started by root, the data lives outside the checkout and this path links to it.
   */
  dataDir: string;
  port: number;
  /** The superuser Temporal connects as (trust authentication, local connections only). */
  user: string;
  timeoutMs?: number;
  /** Delete the data once the supervisor has stopped everything (test and bench runs). Default false. */
  throwaway?: boolean;
}

export interface RunningPostgres {
  host: string;
  port: number;
  user: string;
  /** Where the data really is (outside the checkout when started by root). */
  dataDir: string;
  process: ManagedProcess;
}

/** Who runs the cluster: ourselves, or `postgres` when we are root. */
function runAs(): UnixUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch (err) {
    throw new StartError(
      'PostgreSQL',
      'there is no `postgres` user to run it as (PostgreSQL refuses to run as root)',
      "install Debian's postgresql package (node scripts/bootstrap-cluster.mjs does)",
      { cause: err },
    );
  }
}

function initCluster(dataDir: string, options: PostgresOptions, user: UnixUser | undefined): void {
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  execFileSync(
    path.join(options.binDir, 'initdb'),
    ['-D', dataDir, '-U', options.user, '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8'],
    { stdio: 'pipe', cwd: os.tmpdir(), ...user },
  );
}

/** How Temporal's PostgreSQL runs, here and in docker-compose.yml's `temporal-db`. */
export const TEMPORAL_POSTGRES_SETTINGS: Readonly<Record<string, string>> = {
  // Each of Temporal's four services keeps pools of up to 30 (deploy/temporal/utility-tools.yaml):
  // 120 in all, past PostgreSQL's default of 100.
  max_connections: '200',
  // Most of the tree's shared memory: load fills it, then it stays (docs/OPERATING.md).
  shared_buffers: '128MB',
  // Temporal writes a little on every workflow step; a crash may lose the last few hundred ms
  // of commits, never consistency (the data directory survives SIGKILL either way).
  synchronous_commit: 'off',
};

/** Settings on the command line, so a reused data directory runs exactly as configured here. */
function serverArgs(options: PostgresOptions, dataDir: string): string[] {
  const settings: Record<string, string> = {
    port: String(options.port),
    listen_addresses: '127.0.0.1',
    unix_socket_directories: '', // TCP only: no socket folder to own
    ...TEMPORAL_POSTGRES_SETTINGS,
    log_min_messages: 'warning',
  };
  return ['-D', dataDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
}

/** Starts it and waits until it answers; any failure is one StartError line. */
export function startPostgres(supervisor: Supervisor, options: PostgresOptions): Promise<RunningPostgres> {
  const log = supervisor.options.logDir ? path.join(supervisor.options.logDir, 'postgres.log') : 'the output above';
  return startingPart('PostgreSQL', `see ${log}`, async () => {
    await assertPortFree(options.port, 'PostgreSQL');
    const user = runAs();
    const data = placePostgresData(options.dataDir, user);
    if (options.throwaway) supervisor.afterStopAll(data.remove);
    try {
      initCluster(data.dir, options, user);
    } catch (err) {
      throw new StartError('PostgreSQL', `initdb failed: ${reasonOf(err)}`, `check ${data.dir} and the disk it is on, then start again`, {
        cause: err,
      });
    }
    return run(supervisor, options, data.dir, user);
  });
}

async function run(
  supervisor: Supervisor,
  options: PostgresOptions,
  dataDir: string,
  user: UnixUser | undefined,
): Promise<RunningPostgres> {
  const proc = supervisor.start({
    name: 'postgres',
    command: path.join(options.binDir, 'postgres'),
    args: serverArgs(options, dataDir),
    cwd: os.tmpdir(),
    layer: -1, // stops after Temporal, which holds connections to it
    stopSignal: 'SIGINT', // fast shutdown: SIGTERM would wait for every client to leave
    stopTimeoutMs: 20_000,
    user,
  });
  const running = { host: '127.0.0.1', port: options.port, user: options.user, dataDir, process: proc };
  await waitUntil(
    async () => {
      execFileSync(path.join(options.binDir, 'pg_isready'), ['-h', running.host, '-p', String(running.port), '-q'], { stdio: 'ignore' });
      return true;
    },
    { what: `PostgreSQL on port ${options.port}`, timeoutMs: options.timeoutMs ?? 60_000, processes: [proc] },
  );
  return running;
}
