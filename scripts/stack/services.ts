//! The stack's infrastructure: the Temporal dev server and SecantusDB (the MongoDB-wire database),
//! each started under the supervisor and waited for until it really answers.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import { temporalConnectOptions, type TemporalSettings } from '../../lib/config-temporal.js';
import { assertPortFree, waitUntil } from './net.js';
import type { ManagedProcess, Supervisor } from './supervisor.js';

/** Search attributes the API sets on every `toolCall` workflow, and a batch item's `BatchId` (contracts/call.ts). */
export const SEARCH_ATTRIBUTES = ['AccountId=Keyword', 'Tool=Keyword', 'BatchId=Keyword'];

/**
 * Server settings for call latency and a memory bound, the same as deploy/temporal-dynamic-config.yaml
 * (which says why each one, at more length):
 * - the transfer queue, which hands new workflow and activity tasks to matching, is polled at most
 *   20 times a second per shard by default: the dev server has one shard, so every hop waited up to
 *   50 ms (a workflow with two sequential activities: 200 ms -> 45 ms p50 here);
 * - one partition per task queue instead of four: with four, a task can land in a partition whose
 *   pollers are all busy elsewhere and waits to be forwarded (at most 10 forwards a second). One
 *   node gains nothing from spreading a queue. Empty workflow at 32 in flight: p99 2.3-2.5 s ->
 *   0.7-0.8 s (bench:core's floor rows);
 * - the history service's cache of workflows' mutable state holds 2,048 of them, not the dev server's
 *   8,096 (the cluster's default is 256,000): a call's workflow is done within seconds, so the cache
 *   only fills with finished ones, and the server's RSS rose until it was full. Empty workflows at
 *   10/s for 13 min, side by side: 8,096 levelled at 360-390 MiB, 2,048 at 280-290 MiB.
 */
export const TEMPORAL_DYNAMIC_CONFIG = [
  'history.transferProcessorMaxPollRPS=1000',
  'history.hostLevelCacheMaxSize=2048',
  'matching.numTaskqueueReadPartitions=1',
  'matching.numTaskqueueWritePartitions=1',
];

export interface TemporalOptions {
  /** Path of the `temporal` CLI. */
  binary: string;
  /** Frontend gRPC port. */
  port: number;
  /** Web UI port; the server runs headless when unset. */
  uiPort?: number;
  /** HTTP API and metrics ports; the server picks free ones when unset. */
  httpPort?: number;
  metricsPort?: number;
  /** SQLite file that keeps workflows across restarts; in memory when unset. */
  dbFile?: string;
  namespace?: string;
  /** How long to wait for it to answer. Default 60 s. */
  timeoutMs?: number;
  /** Dynamic config values (`key=value`). Default TEMPORAL_DYNAMIC_CONFIG; benches try others. */
  dynamicConfig?: string[];
}

export interface RunningTemporal {
  address: string;
  namespace: string;
  uiUrl?: string;
  process: ManagedProcess;
}

export async function startTemporal(supervisor: Supervisor, options: TemporalOptions): Promise<RunningTemporal> {
  const namespace = options.namespace ?? 'default';
  const hint = 'another Temporal server? set TEMPORAL_ADDRESS to use it, or stop it';
  await assertPortFree(options.port, 'Temporal', hint);
  if (options.uiPort) await assertPortFree(options.uiPort, 'Temporal UI', hint);
  if (options.dbFile) mkdirSync(path.dirname(options.dbFile), { recursive: true });

  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port)];
  // WAL: workflow tasks write SQLite constantly; without it each write waits on a full sync.
  if (options.dbFile)
    args.push('--db-filename', options.dbFile, '--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal');
  if (options.uiPort) args.push('--ui-port', String(options.uiPort), '--ui-disable-news-fetch');
  else args.push('--headless');
  if (options.httpPort) args.push('--http-port', String(options.httpPort));
  if (options.metricsPort) args.push('--metrics-port', String(options.metricsPort));
  if (namespace !== 'default') args.push('--namespace', namespace);
  for (const attribute of SEARCH_ATTRIBUTES) args.push('--search-attribute', attribute);
  // The version check calls out to the internet, which this service must never need.
  args.push('--dynamic-config-value', 'frontend.enableServerVersionCheck=false', '--log-level', 'warn');
  for (const setting of options.dynamicConfig ?? TEMPORAL_DYNAMIC_CONFIG) args.push('--dynamic-config-value', setting);

  const proc = supervisor.start({ name: 'temporal', command: options.binary, args, layer: 0, stopTimeoutMs: 10_000 });
  const address = `127.0.0.1:${options.port}`;
  await waitForTemporal({ address, namespace }, { timeoutMs: options.timeoutMs ?? 60_000, processes: [proc] });
  return { address, namespace, uiUrl: options.uiPort ? `http://localhost:${options.uiPort}` : undefined, process: proc };
}

/**
 * Waits until the frontend reports SERVING over gRPC health and the namespace exists, reached as
 * the service reaches it (TLS and an API key when its settings have them).
 */
export function waitForTemporal(temporal: TemporalSettings, options: { timeoutMs: number; processes?: ManagedProcess[] }): Promise<void> {
  const { namespace } = temporal;
  return waitUntil(
    async () => {
      const connection = await Connection.connect({ ...temporalConnectOptions(temporal), connectTimeout: '2s' });
      try {
        const health = await connection.healthService.check({});
        if (health.status !== 1 /* SERVING */) throw new Error(`health status ${health.status}`);
        await connection.workflowService.describeNamespace({ namespace });
        return true;
      } finally {
        await connection.close();
      }
    },
    { what: `Temporal at ${temporal.address}`, ...options },
  );
}

/**
 * Waits until the process `pid` polls every one of `taskQueues` (workflow tasks): a worker
 * process is back when Temporal sees it asking for work, not when it has been spawned. The SDK
 * names a worker `<pid>@<host>` unless told otherwise.
 */
export async function waitForPollers(
  temporal: TemporalSettings,
  taskQueues: string[],
  pid: number,
  options: { timeoutMs: number; processes?: ManagedProcess[] },
): Promise<void> {
  // One connection for the whole wait: Temporal is up, only the worker is coming back.
  const { namespace } = temporal;
  const connection = await Connection.connect({ ...temporalConnectOptions(temporal), connectTimeout: '2s' });
  try {
    await waitUntil(
      async () => {
        for (const name of taskQueues) {
          const { pollers } = await connection.workflowService.describeTaskQueue({
            namespace,
            taskQueue: { name, kind: 1 /* NORMAL */ },
            taskQueueType: 1 /* WORKFLOW */,
          });
          if (!pollers?.some((p) => p.identity?.startsWith(`${pid}@`))) throw new Error(`process ${pid} does not poll ${name} yet`);
        }
        return true;
      },
      { what: `workers (process ${pid}) polling`, intervalMs: 100, ...options },
    );
  } finally {
    await connection.close();
  }
}

/** SecantusDB's server with the stack's fixes installed (secantusd.py, and the files it names). */
const SECANTUSD = fileURLToPath(new URL('./secantusd.py', import.meta.url));

/**
 * The database's cache ceiling: MongoDB's own floor, and far above what the server keeps (see
 * WIREDTIGER_SETTINGS). Writers are made to evict once updates pass a tenth of the ceiling: under
 * 16M that was 1.6 MB, which eight connections updating one 50 KB document reach, and the page they
 * all wanted could not be evicted while their own cursors held it, so the whole server answered
 * nothing for about a minute at a time (test/scripts/stack/wiredtiger-settings.test.ts).
 */
export const DATABASE_CACHE_SIZE = '256M';

/**
 * WiredTiger's own settings file in its home (`WiredTiger.config`, read at every open; SecantusDB
 * has no flag for these). WiredTiger keeps what it touched until the cache holds `eviction_target`
 * of its ceiling (80% by default), so the server's memory would follow the data far beyond the
 * hour-long soak. Its background eviction keeps clean pages at 4 MB, dirty ones at 2 MB and updates
 * at 1 MB instead (sizes, not shares of the ceiling), where the service's hot set fits; application
 * threads only evict past the triggers, which keep their shares of the 256M ceiling. Figures in
 * docs/OPERATING.md.
 */
export const WIREDTIGER_SETTINGS = 'eviction_target=4MB,eviction_dirty_target=2MB,eviction_updates_target=1MB\n';

export interface DatabaseOptions {
  /** Path of `secantusd-py` (in .tools/secantus). */
  binary: string;
  port: number;
  /** The address it listens on. Default 127.0.0.1. */
  host?: string;
  /** WiredTiger home; created when missing, reopened intact across restarts. */
  dir: string;
  /** Database name in the returned URL. Default `utility_tools`. */
  dbName?: string;
  /** WiredTiger's cache ceiling (DATABASE_CACHE_SIZE): not what the server keeps, which WIREDTIGER_SETTINGS' targets set. */
  cacheSize?: string;
  timeoutMs?: number;
}

export interface RunningDatabase {
  url: string;
  process: ManagedProcess;
}

export async function startDatabase(supervisor: Supervisor, options: DatabaseOptions): Promise<RunningDatabase> {
  await assertPortFree(options.port, 'database', 'another database? set MONGODB_URL to use it, or stop it');
  mkdirSync(options.dir, { recursive: true });
  // An explicit (empty) config file turns off SecantusDB's discovery of ./secantusd.toml,
  // ~/.secantus/ and /etc/secantus/, so nothing on the machine changes how it runs.
  const config = path.join(path.dirname(options.dir), 'secantusd.toml');
  writeFileSync(config, '# Settings come from the command line (scripts/stack/services.ts).\n');
  writeFileSync(path.join(options.dir, 'WiredTiger.config'), WIREDTIGER_SETTINGS);

  const args = [
    '--config',
    config,
    '--host',
    options.host ?? '127.0.0.1',
    '--port',
    String(options.port),
    '--storage-path',
    options.dir,
    // A standalone server: the service needs no transactions or change streams.
    '--standalone',
    '--cache-size',
    options.cacheSize ?? DATABASE_CACHE_SIZE,
    '--log-level',
    'WARNING',
  ];
  // SecantusDB's own Python, running it through secantusd.py: findAndModify without a collection
  // scan, and an open that does not read every document.
  const python = path.join(path.dirname(options.binary), 'python3');
  // Two malloc arenas, not glibc's eight per core: the server runs a thread per connection, each
  // thread's arena kept its freed pages, and with the cache full the process still grew 74 -> 99 MiB
  // over 400,000 inserts (73 -> 84 MiB with two, level from the 200,000th).
  const env = { ...process.env, MALLOC_ARENA_MAX: '2' };
  const proc = supervisor.start({ name: 'database', command: python, args: [SECANTUSD, ...args], env, layer: 0, stopTimeoutMs: 10_000 });
  const url = `mongodb://${options.host ?? '127.0.0.1'}:${options.port}/${options.dbName ?? 'utility_tools'}`;
  await waitForMongo(url, { timeoutMs: options.timeoutMs ?? 60_000, processes: [proc] });
  return { url, process: proc };
}

/** Waits until the server answers a `ping`. */
export function waitForMongo(url: string, options: { timeoutMs: number; processes?: ManagedProcess[] }): Promise<void> {
  return waitUntil(
    async () => {
      const client = new MongoClient(url, { serverSelectionTimeoutMS: 1_000, connectTimeoutMS: 1_000 });
      try {
        await client.db('admin').command({ ping: 1 });
        return true;
      } finally {
        await client.close();
      }
    },
    { what: `database at ${redactUrl(url)}`, ...options },
  );
}

/** A connection string without its password, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
