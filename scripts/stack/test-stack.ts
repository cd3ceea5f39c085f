//! The test-like stack: fixtures (pages, DNS, CA, gold feed), Temporal on disk, SecantusDB, MailDev
//! (the SMTP server mail goes to), stripe-mock (when built: Stripe's API), the API and the workers on
//! free ports, configured against the fixtures, plus the control endpoint
//! that breaks and restores parts of it. `npm test` runs its suites against one; the chaos, load
//! and fuzz scripts (bench/) start one of their own the same way.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { localBlobStore, startApps, startWorkers, throwawayEnv, type AppOptions, type RunningApps } from './apps.js';
import { startControlServer } from './control.js';
import { freePort, onAnotherPortIfTaken } from './net.js';
import { startDatabase, startTemporal, waitForPollers, type RunningDatabase, type RunningTemporal } from './services.js';
import { poolTaskQueues } from '../../domain/tools/index.js';
import { POOLS } from '../../contracts/temporal-names.js';
import type { ManagedProcess, Supervisor } from './supervisor.js';
import { startJaeger, tracingEnv, type JaegerPorts, type RunningJaeger } from './jaeger.js';
import { startStripeMock, type RunningStripeMock } from './stripe-mock.js';
import { startMailDev, type RunningMailDev } from './maildev.js';

/** How long the `outage/...` control actions keep a part down. */
export const OUTAGE_MS = 15_000;

export interface TestStackOptions {
  /** Repository root. */
  root: string;
  /** The run's directory: fixtures' CA, Temporal's SQLite file, the database, the CA bundle. */
  runDir: string;
  /** Binaries from bootstrap(); with `stripeMock` the stack has payments on, against it. */
  tools: { temporal: string; secantusd: string; stripeMock?: string };
  /** Extra environment of the API and workers; wins over the defaults below. */
  env?: NodeJS.ProcessEnv;
  /** Called once the fixtures, Temporal and the database answer (for progress lines). */
  onInfrastructureUp?: () => void;
  /**
   * Tracing of the apps, every call sampled. `nowhere`: on, exported to a port nothing listens on
   * (`npm test`: what a trace changes in answers, logs and memos, without a backend). `{ jaeger }`:
   * to a Jaeger of this stack's own, started from that built binary before the apps
   * (`npm run test:traces`). Absent: tracing off.
   */
  traces?: 'nowhere' | { jaeger: string };
}

/** What the fixture process prints (test/fixtures/info.ts); kept loose here to stay out of test/. */
export type FixturesJson = Record<string, unknown> & {
  caCertFile: string;
  caKeyFile: string;
  targetAllowlist: string[];
  dnsServers: string[];
  goldFeed: { goldUrl: string; fxUrl: string; controlUrl: string };
  http: { url: string };
  oidc?: { id: string; name: string; issuer: string; clientId: string; clientSecret: string };
};

export interface TestStack {
  apiUrl: string;
  /** Each app process's operator port (`api`, `workers`): `/metrics`, and the workers' `/healthz`. */
  operatorUrls: Record<string, string>;
  adminToken: string;
  /** The environment the API and workers run with. */
  env: NodeJS.ProcessEnv;
  fixtures: FixturesJson;
  fixturesProcess: ManagedProcess;
  /** The control endpoint (POST `<url>/<action>`), as STACK_CONTROL_URL. */
  controlUrl: string;
  /** Current Temporal, database and apps: the control actions replace them. */
  readonly temporal: RunningTemporal;
  readonly database: RunningDatabase;
  readonly apps: RunningApps;
  /** Process id of each part now (a killed part comes back with another). */
  pids(): Record<string, number | undefined>;
  /** Jaeger's query API and UI, when `traces` gave one. */
  jaegerQueryUrl?: string;
  /** stripe-mock, when `tools.stripeMock` was given (its address and keys are in `env`). */
  stripeMock?: RunningStripeMock;
  /** MailDev's REST API (`GET /api/email`), where the apps' mail arrives: MAIL_API_URL for the tests. */
  mailApiUrl: string;
}

/** The first line of output that parses as a JSON object: how the fixture process says where it is. */
function firstJsonLine(proc: ManagedProcess, timeoutMs: number): Promise<FixturesJson> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`fixtures printed no JSON line within ${timeoutMs / 1000} s:\n${proc.tail()}`)),
      timeoutMs,
    );
    const off = proc.onLine((line) => {
      if (!line.startsWith('{')) return;
      clearTimeout(timer);
      off();
      resolve(JSON.parse(line));
    });
    void proc.exited.then(() => reject(new Error(`fixtures: ${proc.describeExit()}\n${proc.tail()}`)));
  });
}

/**
 * NODE_EXTRA_CA_CERTS takes one file: the run's test CA plus whatever extra CAs the machine
 * already had configured, so setting it for the tests takes nothing away.
 */
function caBundle(runDir: string, testCaFile: string): string {
  const parts = [readFileSync(testCaFile, 'utf8')];
  const existing = process.env.NODE_EXTRA_CA_CERTS;
  if (existing && existsSync(existing)) parts.push(readFileSync(existing, 'utf8'));
  const file = path.join(runDir, 'extra-ca-certs.pem');
  writeFileSync(file, parts.join('\n'));
  return file;
}

/** The fixture servers of a run (test/fixtures/start.ts), once they say where they are. */
export async function startFixtures(
  supervisor: Supervisor,
  root: string,
  runDir: string,
): Promise<{ fixtures: FixturesJson; process: ManagedProcess }> {
  const proc = supervisor.start({
    name: 'fixtures',
    command: process.execPath,
    args: ['--import', 'tsx', 'test/fixtures/start.ts', path.join(runDir, 'fixtures')],
    cwd: root,
    layer: 0,
  });
  return { fixtures: await firstJsonLine(proc, 60_000), process: proc };
}

/** The apps' settings that point them at the fixtures (and allow what the suites need). */
export function fixturesEnv(fixtures: FixturesJson, runDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    WEBHOOKS_ALLOW_LOCALHOST: 'true',
    // The fixtures' address (127.0.0.2): the database and Temporal, on 127.0.0.1, stay refused.
    TARGET_ALLOWLIST: fixtures.targetAllowlist.join(','),
    DNS_SERVERS: fixtures.dnsServers.join(','),
    NODE_EXTRA_CA_CERTS: caBundle(runDir, fixtures.caCertFile),
    LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
    // High enough that suites firing 100 calls at once meet credits, not the limiter; the
    // limiter's own test reads the limit from the RateLimit-Limit header.
    RATE_LIMIT_PER_SECOND: '60',
    // The cpu pool as on this kind of machine (2 threads, 16 call slots) whatever the cores here:
    // test/api/long-calls.test.ts sends one conversion more than those slots.
    CPU_CONCURRENCY: '2',
    // The batch suites hold this many of an account's items at once and see no more start.
    BATCH_CONCURRENCY: '4',
    // Monitors run every second in their suites (test/monitors/), whose verdicts wait for runs, not time.
    MONITOR_MIN_INTERVAL_S: '1',
    MONITORS_PER_ACCOUNT: '20',
    GOLD_FEED_URL: fixtures.goldFeed.goldUrl,
    FX_FEED_URL: fixtures.goldFeed.fxUrl,
    // The fixture's OpenID provider (test/fixtures/oidc-provider.ts): company sign-in against a real one.
    ...(fixtures.oidc
      ? {
          OIDC_PROVIDERS: JSON.stringify([
            {
              id: fixtures.oidc.id,
              name: fixtures.oidc.name,
              issuer: fixtures.oidc.issuer,
              clientId: fixtures.oidc.clientId,
              clientSecret: fixtures.oidc.clientSecret,
            },
          ]),
        }
      : {}),
  };
  if (!env.DNS_SERVERS) delete env.DNS_SERVERS;
  return env;
}

/** The sender of the test stacks' mail (MAIL_FROM). */
export const TEST_MAIL_FROM = 'Utility Tools <no-reply@utility-tools.test>';

/** A MailDev of the run's own on free ports (in memory: a run's mail goes with it), and the apps' settings for it. */
export async function startTestMailDev(
  supervisor: Supervisor,
  root: string,
): Promise<{ mailDev: RunningMailDev; mailEnv: NodeJS.ProcessEnv }> {
  const smtp = { port: await freePort() };
  // A fresh inbox port per attempt; the SMTP port is the one onAnotherPortIfTaken replaces.
  const mailDev = await onAnotherPortIfTaken(
    smtp,
    async () => startMailDev(supervisor, { root, smtpPort: smtp.port, webPort: await freePort() }),
    () => {},
  );
  return { mailDev, mailEnv: { SMTP_URL: mailDev.smtpUrl, MAIL_FROM: TEST_MAIL_FROM } };
}

/** The apps' tracing variables for `traces`, and the Jaeger started for them (every call sampled: a test finds its own). */
async function startTraces(
  supervisor: Supervisor,
  root: string,
  traces: TestStackOptions['traces'],
): Promise<{ traced: NodeJS.ProcessEnv; jaeger?: RunningJaeger }> {
  if (!traces) return { traced: {} };
  const ports: JaegerPorts = { otlp: await freePort(), query: await freePort(), queryGrpc: await freePort() };
  const traced = tracingEnv(ports, 'parentbased_always_on');
  // Nothing is started on `ports.otlp`: the exporter's sends are refused and dropped, as with a collector down.
  if (traces === 'nowhere') return { traced };
  return { traced, jaeger: await startJaeger(supervisor, { root, binary: traces.jaeger, ports, timeoutMs: 120_000 }) };
}

export async function startTestStack(supervisor: Supervisor, options: TestStackOptions): Promise<TestStack> {
  const { root, runDir, tools } = options;
  const databaseOptions = { binary: tools.secantusd, port: await freePort(), dir: path.join(runDir, 'db') };
  // On disk, not in memory: tests restart Temporal and expect nothing to be lost.
  const temporalOptions = { binary: tools.temporal, port: await freePort(), dbFile: path.join(runDir, 'temporal', 'temporal.db') };
  let [{ fixtures, process: fixturesProcess }, temporal, database, { mailDev, mailEnv }, stripeMock] = await Promise.all([
    startFixtures(supervisor, root, runDir),
    onAnotherPortIfTaken(
      temporalOptions,
      () => startTemporal(supervisor, temporalOptions),
      () => rmSync(path.dirname(temporalOptions.dbFile), { recursive: true, force: true }),
    ),
    onAnotherPortIfTaken(
      databaseOptions,
      () => startDatabase(supervisor, databaseOptions),
      () => rmSync(databaseOptions.dir, { recursive: true, force: true }),
    ),
    startTestMailDev(supervisor, root),
    tools.stripeMock ? startStripeMock(supervisor, { binary: tools.stripeMock }) : undefined,
  ]);
  options.onInfrastructureUp?.();

  const { traced, jaeger } = await startTraces(supervisor, root, options.traces);
  const { env, adminToken } = throwawayEnv(temporal, database, {
    ...localBlobStore(path.join(runDir, 'blobs')),
    ...fixturesEnv(fixtures, runDir),
    ...mailEnv,
    ...traced,
    ...stripeMock?.env,
    ...options.env,
  });
  const appOptions: AppOptions = { root, env, apiPort: await freePort() };
  let apps: RunningApps;
  try {
    apps = await startApps(supervisor, appOptions);
  } catch (err) {
    // A process that died is in the error already; one that is still up may say why it is not ready.
    for (const p of supervisor.processes.filter((p) => ['api', 'workers'].includes(p.name) && p.running && p.tail())) {
      console.error(
        `\n--- last lines of ${p.name} (${p.logFile ? path.relative(process.cwd(), p.logFile) : 'no log file'}):\n${p.tail(60)}`,
      );
    }
    throw err;
  }

  const pids = () => ({
    api: apps.api.pid,
    workers: apps.workers.pid,
    temporal: temporal.process.pid,
    database: database.process.pid,
    fixtures: fixturesProcess.pid,
  });
  /** A new worker process, back once it polls every pool's queue (a spawn alone serves no call). */
  async function restartWorkers() {
    apps.workers = startWorkers(supervisor, appOptions);
    apps.workerProcesses = [apps.workers];
    await waitForPollers(temporal, POOLS.flatMap(poolTaskQueues), apps.workers.pid!, {
      timeoutMs: 120_000,
      processes: [apps.workers],
    });
  }
  // The parts the disruptive suites may take down: how each goes down and how it comes back (the
  // variables are read at each call: a part started again is a new process).
  const parts = {
    temporal: {
      kill: () => temporal.process.kill(),
      start: async () => {
        temporal = await startTemporal(supervisor, temporalOptions);
      },
    },
    database: {
      kill: () => database.process.kill(),
      start: async () => {
        database = await startDatabase(supervisor, databaseOptions);
      },
    },
    workers: { kill: () => apps.workers.kill(), start: restartWorkers },
  };
  type Part = (typeof parts)[keyof typeof parts];
  const crash = (part: Part) => async () => {
    await part.kill();
    await part.start();
  };
  // Longer outages than a crash and restart: past the Temporal client's own 10 s of retries
  // and the database driver's quick reconnects, so callers' waits are tested too.
  const outage = (part: Part) => async () => {
    await part.kill();
    await sleep(OUTAGE_MS);
    await part.start();
  };
  // What the disruptive suites may do to the stack; each returns once the part is back.
  const control = await startControlServer({
    'restart/temporal': async () => {
      await temporal.process.stop();
      await parts.temporal.start();
    },
    'kill/temporal': crash(parts.temporal),
    'kill/database': crash(parts.database),
    'kill/workers': crash(parts.workers),
    'outage/temporal': outage(parts.temporal),
    'outage/workers': outage(parts.workers),
    'outage/database': outage(parts.database),
    // A part held down until the test says so, for a test that must see the outage itself
    // rather than catch it within a fixed window.
    'stop/workers': parts.workers.kill,
    'start/workers': parts.workers.start,
    'stop/temporal': () => temporal.process.stop(),
    'start/temporal': parts.temporal.start,
    'stop/database': parts.database.kill,
    'start/database': parts.database.start,
    // Not a fault: the process ids, so the load suite can read each part's memory in /proc.
    processes: async () => pids(),
  });

  return {
    apiUrl: apps.apiUrl,
    operatorUrls: apps.operatorUrls,
    adminToken,
    env,
    fixtures,
    fixturesProcess,
    controlUrl: control.url,
    ...(jaeger && { jaegerQueryUrl: jaeger.queryUrl }),
    mailApiUrl: mailDev.apiUrl,
    ...(stripeMock && { stripeMock }),
    get temporal() {
      return temporal;
    },
    get database() {
      return database;
    },
    get apps() {
      return apps;
    },
    pids,
  };
}
