//! The stack a benchmark measures: the one named by API_URL and ADMIN_TOKEN when both are set
//! (its TARGET_ALLOWLIST must let 127.0.0.2 through and its rate limit allow the load), else a
//! throwaway stack (Temporal, SecantusDB, API, workers) on free ports under
//! test-output/bench-<time>/, stopped at the end. Benchmarks print numbers, never assert.
//! (A stack with fixtures and the control endpoint: test/disruptive/support/test-like-stack.ts.)
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { untilQuiet, type StackProcess } from './process-cpu.js';
import { temporalSettings, type TemporalSettings } from '../lib/config-temporal.js';

export interface BenchStack {
  apiUrl: string;
  adminToken: string;
  /** Where the stack's Temporal is, for reading call histories; unknown for a given stack without TEMPORAL_ADDRESS. */
  temporal?: TemporalSettings;
  /**
   * The stack's processes by role, each the leader of a process group (what it spawns is
   * counted with it): a throwaway stack's own, or BENCH_PROCESSES (`name=pid,...`) for a given one.
   */
  processes: StackProcess[];
  /** The stack's database, for a bench that sets up state the way the service stores it; unknown for a given stack without MONGODB_URL. */
  mongodbUrl?: string;
  /** Opens an account with `credits` and returns its API key. */
  newApiKey(credits: number): Promise<string>;
  /** STRIPE_WEBHOOK_SECRET of a stack with payments on (`stripe` option, or a given stack's environment). */
  stripeWebhookSecret?: string;
}

/** `name=pid,name=pid` (BENCH_PROCESSES) as a list; empty when unset. */
export function parseProcessList(text: string | undefined): StackProcess[] {
  if (!text) return [];
  return text.split(',').map((item) => {
    const [name, pid] = item.split('=');
    if (!name || !pid || !/^\d+$/.test(pid)) throw new Error(`BENCH_PROCESSES: "${item}" is not name=pid`);
    return { name, pid: Number(pid) };
  });
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface RunningBenchStack {
  apiUrl: string;
  adminToken: string;
  stripeWebhookSecret?: string;
  temporal?: TemporalSettings;
  mongodbUrl?: string;
  processes: StackProcess[];
  stop(): Promise<void>;
}

/**
 * Temporal, SecantusDB, the API and one process per pool, as production
 * runs them, so each part's CPU can be read on its own.
 */
async function startThrowawayStack(options: BenchStackOptions = {}): Promise<RunningBenchStack> {
  // bootstrap.mjs is plain JavaScript without types: imported by URL, typed here.
  const { bootstrap } = (await import(new URL('../scripts/bootstrap.mjs', import.meta.url).href)) as {
    bootstrap: (o: {
      root: string;
      log: (line: string) => void;
      stripeMock?: boolean;
    }) => Promise<{ temporal: string; secantusd: string; stripeMock?: string }>;
  };
  const stack = await import('../scripts/stack/index.js');
  const tools = await bootstrap({ root, log: (line) => console.log(`bootstrap: ${line}`), stripeMock: options.stripe });
  const runDir = path.join(root, 'test-output', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const supervisor = new stack.Supervisor({ logDir: path.join(runDir, 'logs') });
  supervisor.stopOnSignals();
  const started = performance.now();
  // On another port when one was taken meanwhile, as the test stack does: `temporal server start-dev`
  // picks its internal services' ports itself, and once gave one the port just picked for its frontend.
  const temporalOptions = {
    binary: tools.temporal,
    port: await stack.freePort(),
    ...(options.temporalOnDisk ? { dbFile: path.join(runDir, 'temporal', 'temporal.db') } : {}),
    ...(options.temporalSettings?.length ? { dynamicConfig: [...stack.TEMPORAL_DYNAMIC_CONFIG, ...options.temporalSettings] } : {}),
  };
  const databaseOptions = { binary: tools.secantusd, port: await stack.freePort(), dir: path.join(runDir, 'db') };
  const [temporal, database, stripeMock] = await Promise.all([
    stack.onAnotherPortIfTaken(
      temporalOptions,
      () => stack.startTemporal(supervisor, temporalOptions),
      () => {},
    ),
    stack.onAnotherPortIfTaken(
      databaseOptions,
      () => stack.startDatabase(supervisor, databaseOptions),
      () => rmSync(databaseOptions.dir, { recursive: true, force: true }),
    ),
    tools.stripeMock ? stack.startStripeMock(supervisor, { binary: tools.stripeMock }) : undefined,
  ]);
  // Traced: the service's default sampling, exported to a Jaeger of the stack's own (built if missing).
  let traced: NodeJS.ProcessEnv = {};
  if (options.tracing) {
    const { ensureJaeger } = (await import(new URL('../scripts/jaeger-build.mjs', import.meta.url).href)) as {
      ensureJaeger: (o: { root: string }) => Promise<string>;
    };
    const ports = { otlp: await stack.freePort(), query: await stack.freePort(), queryGrpc: await stack.freePort() };
    await stack.startJaeger(supervisor, { root, binary: await ensureJaeger({ root }), ports });
    traced = stack.tracingEnv(ports);
  }
  const { env, adminToken } = stack.throwawayEnv(temporal, database, {
    ...traced,
    ...stack.localBlobStore(path.join(runDir, 'blobs')),
    TARGET_ALLOWLIST: '127.0.0.2/32',
    // bench:webhooks posts to a receiver in the bench process, on localhost.
    WEBHOOKS_ALLOW_LOCALHOST: 'true',
    RATE_LIMIT_PER_SECOND: '10000',
    LOG_LEVEL: 'warn',
    ...stripeMock?.env,
  });
  const apps = await stack.startApps(supervisor, { root, env, apiPort: await stack.freePort(), pools: 'apart' });
  console.log(
    `bench: own stack ready in ${((performance.now() - started) / 1000).toFixed(1)} s (logs in ${path.relative(process.cwd(), runDir)}/logs)`,
  );
  const processes = [
    { name: 'temporal', pid: temporal.process.pid },
    { name: 'database', pid: database.process.pid },
    { name: 'api', pid: apps.api.pid },
    ...apps.workerProcesses.map((p) => ({ name: p.name, pid: p.pid })),
  ].filter((p): p is StackProcess => p.pid !== undefined);
  return {
    apiUrl: apps.apiUrl,
    adminToken,
    stripeWebhookSecret: stripeMock?.env.STRIPE_WEBHOOK_SECRET,
    temporal: { address: temporal.address, namespace: temporal.namespace },
    mongodbUrl: env.MONGODB_URL,
    processes,
    stop: () => supervisor.stopAll(),
  };
}

/** An account opened through the operator API: its id, owner token and API key. */
export interface BenchAccount {
  id: string;
  ownerToken: string;
  apiKey: string;
}

/** Opens an account named `name` with `credits` through the operator API. */
export async function openBenchAccount(apiUrl: string, adminToken: string, credits: number, name = 'bench'): Promise<BenchAccount> {
  const res = await fetch(`${apiUrl}/api/v1/admin/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, credits }),
  });
  if (res.status !== 201) throw new Error(`could not open a bench account: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { account: { id: string }; ownerToken: string; apiKey: { key: string } };
  return { id: body.account.id, ownerToken: body.ownerToken, apiKey: body.apiKey.key };
}

/** Opens an account with `credits` through the operator API and returns its API key. */
export async function benchApiKey(apiUrl: string, adminToken: string, credits: number): Promise<string> {
  return (await openBenchAccount(apiUrl, adminToken, credits)).apiKey;
}

/** A POST of JSON to the stack's API as `token`; its answer parsed (undefined when empty), any status from 300 on thrown. */
export async function postToStack(stack: Pick<BenchStack, 'apiUrl'>, token: string, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${stack.apiUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

export interface BenchStackOptions {
  /** A throwaway stack that traces at the service's default sampling, to a Jaeger of its own. */
  tracing?: boolean;
  /** A throwaway stack with payments on, against a stripe-mock of its own (bench:billing). */
  stripe?: boolean;
  /**
   * Temporal keeps its workflows in a file, as `npm start` and production do, instead of in memory
   * (where every finished history stays in the process: a bench of long runs would see that as growth).
   */
  temporalOnDisk?: boolean;
  /** Dynamic config settings (`key=value`) the throwaway stack's Temporal gets beside the service's own. */
  temporalSettings?: string[];
}

/** Lets a stack that has just started finish starting before anything is measured on it. */
export async function settle(processes: StackProcess[]): Promise<void> {
  const { waitedS, quiet } = await untilQuiet(processes);
  console.log(`bench: stack ${quiet ? 'quiet' : 'still busy'} after ${waitedS.toFixed(1)} s`);
}

export async function withBenchStack<T>(fn: (stack: BenchStack) => Promise<T>, options: BenchStackOptions = {}): Promise<T> {
  const given = process.env.API_URL && process.env.ADMIN_TOKEN;
  const e = process.env;
  const platform: RunningBenchStack = given
    ? {
        apiUrl: e.API_URL!,
        adminToken: e.ADMIN_TOKEN!,
        temporal: e.TEMPORAL_ADDRESS ? temporalSettings(e) : undefined,
        mongodbUrl: e.MONGODB_URL,
        processes: parseProcessList(e.BENCH_PROCESSES),
        stripeWebhookSecret: e.STRIPE_WEBHOOK_SECRET || undefined,
        stop: async () => {},
      }
    : await startThrowawayStack(options);
  if (given) console.log(`bench: the stack at ${platform.apiUrl}`);
  else await settle(platform.processes);
  // Helpers that read the test environment (test/helpers/api.ts) then work against this stack; put
  // back after, so a second throwaway stack in the same run (bench:core's traced one) is its own.
  const previous = { API_URL: process.env.API_URL, ADMIN_TOKEN: process.env.ADMIN_TOKEN };
  process.env.API_URL = platform.apiUrl;
  process.env.ADMIN_TOKEN = platform.adminToken;
  try {
    return await fn({
      apiUrl: platform.apiUrl,
      adminToken: platform.adminToken,
      temporal: platform.temporal,
      mongodbUrl: platform.mongodbUrl,
      processes: platform.processes,
      stripeWebhookSecret: platform.stripeWebhookSecret,
      newApiKey: (credits) => benchApiKey(platform.apiUrl, platform.adminToken, credits),
    });
  } finally {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await platform.stop();
  }
}

/**
 * A SecantusDB of its own (no Temporal, no API) under test-output/bench-<label>-<time>/, for the
 * benches of one part: `fn` gets its URL and process id; the database stops after it.
 */
export async function withBenchDatabase<T>(label: string, fn: (database: { url: string; pid: number }) => Promise<T>): Promise<T> {
  const { bootstrap } = (await import(new URL('../scripts/bootstrap.mjs', import.meta.url).href)) as {
    bootstrap: (o: { root: string; log: (line: string) => void }) => Promise<{ secantusd: string }>;
  };
  const stack = await import('../scripts/stack/index.js');
  const tools = await bootstrap({ root, log: (line) => console.log(`bootstrap: ${line}`) });
  const runDir = path.join(root, 'test-output', `bench-${label}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const supervisor = new stack.Supervisor({ logDir: path.join(runDir, 'logs') });
  supervisor.stopOnSignals();
  try {
    const database = await stack.startDatabase(supervisor, {
      binary: tools.secantusd,
      port: await stack.freePort(),
      dir: path.join(runDir, 'db'),
    });
    return await fn({ url: database.url, pid: database.process.pid! });
  } finally {
    await supervisor.stopAll();
  }
}
