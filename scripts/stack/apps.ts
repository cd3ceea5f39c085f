//! The service's own processes: the API and one process hosting every worker pool, run from the
//! TypeScript sources with tsx, ready when the API's `/readyz` answers 200.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort, waitForHttp } from './net.js';
import type { RunningDatabase, RunningTemporal } from './services.js';
import type { ManagedProcess, Supervisor } from './supervisor.js';

export interface AppOptions {
  /** Repository root (entry points are relative to it). */
  root: string;
  /** The complete environment of both processes; `PORT` is set from `apiPort`. */
  env: NodeJS.ProcessEnv;
  apiPort: number;
  /** How long the API may take to become ready. Default 120 s. */
  timeoutMs?: number;
  /** Echo their output to this terminal (npm start) rather than only to log files (npm test). */
  echo?: boolean;
  /** How echoed lines are shown (`npm start` on a terminal: readable, scripts/stack/terminal-log.ts). */
  echoFormat?: (line: string) => string;
  /**
   * `together` (default): every pool in one process, as `npm start` and `npm test` run them.
   * `apart`: one process per pool, as production runs them (bench:core reads each one's CPU).
   */
  pools?: 'together' | 'apart';
  /**
   * Each process's METRICS_PORT by name (`api`, `workers`, `worker-<pool>`): its metrics and, for
   * a worker, its health endpoint, on 127.0.0.1. startApps fills it; a restart keeps the port.
   */
  metricsPorts?: Record<string, number>;
}

/** Big outputs in a directory every local process shares (lib/blob-store.ts): `BLOB_STORE_URL` for `dir`. */
export function localBlobStore(dir: string): NodeJS.ProcessEnv {
  return { BLOB_STORE_URL: pathToFileURL(dir).href };
}

/**
 * The environment of a throwaway stack's apps (test, bench): where Temporal and the database
 * are, a fresh secret key and admin token, then `extra` on top.
 */
export function throwawayEnv(
  temporal: Pick<RunningTemporal, 'address' | 'namespace'>,
  database: Pick<RunningDatabase, 'url'>,
  extra: NodeJS.ProcessEnv,
): { env: NodeJS.ProcessEnv; adminToken: string } {
  const adminToken = randomBytes(24).toString('base64url');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MONGODB_URL: database.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    SECRET_KEY: randomBytes(32).toString('hex'),
    ADMIN_TOKEN: adminToken,
    ...extra,
  };
  return { env, adminToken };
}

export interface RunningApps {
  apiUrl: string;
  /** Each process's operator port by name (`api`, `workers` or `worker-<pool>`): `/metrics`, and a worker's `/healthz`. */
  operatorUrls: Record<string, string>;
  api: ManagedProcess;
  /** The process hosting every pool; with `pools: 'apart'`, the core pool's. */
  workers: ManagedProcess;
  /** Every worker process (one, or one per pool). */
  workerProcesses: ManagedProcess[];
}

/**
 * glibc malloc settings for the API process. Its native memory (not V8's heap) rose at every fault
 * and stayed: the buffers of a burst of reconnects and retries were freed into per-thread arenas and
 * below the heap's top, where glibc keeps them. Two arenas, and a fixed 128 KiB threshold above
 * which blocks are mapped apart and unmapped when freed and past which the heap's free top is
 * returned, hold it level (docs/OPERATING.md has the figures). Also docker-compose.yml's api services.
 */
export const API_MALLOC_ENV: NodeJS.ProcessEnv = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
};

/** An API process's environment: the malloc defaults under `env`, so settings already there win. */
export function apiEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...API_MALLOC_ENV, ...env };
}

/** METRICS_PORT (and METRICS_HOST, this machine only) of process `name`, when the stack gave it one. */
function metricsEnv(options: AppOptions, name: string): NodeJS.ProcessEnv {
  const port = options.metricsPorts?.[name];
  return port ? { METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' } : {};
}

/** tsx for the service's own main thread, not for the workflow threads the SDK starts (see the module). */
const TSX_MAIN_THREAD = new URL('./tsx-main-thread.mjs', import.meta.url).href;

/**
 * A service process run as `npm start` and `npm test` run it: `entry` (relative to the root) from
 * its TypeScript sources, tsx on the main thread, the API with its malloc settings.
 */
export function startNode(supervisor: Supervisor, options: AppOptions, name: string, entry: string): ManagedProcess {
  return supervisor.start({
    name,
    command: process.execPath,
    // STACK_NODE_ARGS: extra Node flags for the service's processes, e.g. `--cpu-prof` to profile them.
    args: [...(process.env.STACK_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--import', TSX_MAIN_THREAD, path.join(options.root, entry)],
    cwd: options.root,
    env: { ...(name === 'api' ? apiEnv(options.env) : options.env), PORT: String(options.apiPort), ...metricsEnv(options, name) },
    echo: options.echo,
    echoFormat: options.echoFormat,
  });
}

/** Every worker pool in one process (also how a test restarts the workers after killing them). */
export function startWorkers(supervisor: Supervisor, options: AppOptions): ManagedProcess {
  return startNode(supervisor, options, 'workers', 'workers/all.ts');
}

const POOLS = ['core', 'cpu', 'network', 'browser'] as const;

export async function startApps(supervisor: Supervisor, options: AppOptions): Promise<RunningApps> {
  const names = ['api', ...(options.pools === 'apart' ? POOLS.map((pool) => `worker-${pool}`) : ['workers'])];
  options.metricsPorts ??= {};
  for (const name of names) options.metricsPorts[name] ??= await freePort();
  const operatorUrls = Object.fromEntries(names.map((name) => [name, `http://127.0.0.1:${options.metricsPorts![name]}`]));
  // Workers first: they bundle the workflow code, the slowest part of a start.
  const workerProcesses =
    options.pools === 'apart'
      ? POOLS.map((pool) => startNode(supervisor, options, `worker-${pool}`, `workers/${pool}.ts`))
      : [startWorkers(supervisor, options)];
  const api = startNode(supervisor, options, 'api', 'api/server.ts');
  const apiUrl = `http://127.0.0.1:${options.apiPort}`;
  await waitForHttp(`${apiUrl}/readyz`, { what: 'API', timeoutMs: options.timeoutMs ?? 120_000, processes: [api, ...workerProcesses] });
  return { apiUrl, operatorUrls, api, workers: workerProcesses[0]!, workerProcesses };
}
