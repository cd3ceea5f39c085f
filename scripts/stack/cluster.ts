//! The production shape as plain processes (`npm run start:cluster`, `npm run test:cluster`):
//! PostgreSQL, the Temporal server on it and the Temporal UI, the database, the compiled service
//! from dist/ (what the image runs): two API replicas behind HAProxy and one process per worker
//! pool, the cpu pool twice, each worker serving its metrics on METRICS_PORT; HAProxy serves HTTPS
//! in front (front-door.ts). Temporal's frontend requires mutual TLS (temporal-tls.ts): every
//! client, the apps first, reaches it with the service's TEMPORAL_TLS_* settings. The same files as docker-compose.yml: deploy/temporal/,
//! deploy/haproxy/, deploy/temporal-dynamic-config.yaml.
//! A part that fails to start fails the whole start with one line (StartError). Its processes and
//! their ports: cluster-ports.ts.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlActions } from './control.js';
import { startFrontDoor } from './front-door.js';
import type { RunningLoadBalancer } from './load-balancer.js';
import { freePort, onAnotherPortIfTaken, waitForHttp } from './net.js';
import { API_REPLICAS, WORKER_PROCESSES, type AppName, type ClusterPorts } from './cluster-ports.js';
import { startPostgres, type PostgresOptions, type RunningPostgres } from './postgres.js';
import { startDatabase, waitForPollers, type RunningDatabase } from './services.js';
import { poolTaskQueues } from '../../domain/tools/index.js';
import { startingPart } from './start-error.js';
import type { TemporalSettings } from '../../lib/config-temporal.js';
import { makeTemporalTls } from './temporal-tls.js';
import type { ManagedProcess, Supervisor } from './supervisor.js';
import { OUTAGE_MS } from './test-stack.js';
import { apiEnv, localBlobStore } from './apps.js';
import {
  setupTemporalSchema,
  startTemporalServer,
  startTemporalUi,
  type RunningTemporalServer,
  type RunningUi,
  type TemporalServerOptions,
} from './temporal-server.js';

export interface ClusterTools {
  /** The `temporal` CLI (deploy/temporal/setup.sh uses it) and SecantusDB, from bootstrap.mjs. */
  temporal: string;
  secantusd: string;
  /** From bootstrap-cluster.mjs. */
  temporalServer: string;
  temporalSqlTool: string;
  temporalUiServer: string;
  postgresBin: string;
  haproxy: string;
}

export interface ClusterOptions {
  root: string;
  /**
   * PostgreSQL's and SecantusDB's data: kept across runs. PostgreSQL's is `<dataDir>/postgres`,
   * a link to its real place when started by root (scripts/stack/postgres-data.ts).
   */
  dataDir: string;
  /** Delete what lives outside dataDir (PostgreSQL's data, as root) once the supervisor stops: test and bench runs. Default false. */
  throwaway?: boolean;
  tools: ClusterTools;
  ports: ClusterPorts;
  /** The apps' environment (SECRET_KEY, ADMIN_TOKEN ...); where things are is added here. */
  env: NodeJS.ProcessEnv;
  /** A MongoDB to use instead of a SecantusDB of its own. */
  mongodbUrl?: string;
  namespace?: string;
  /** Echo the apps' output to this terminal. */
  echo?: boolean;
  /** The load balancer's certificate chain and key (PEM); by default one of this machine's own, kept in `<dataDir>/tls`. */
  tlsCert?: string;
}

export interface Cluster {
  /** The load balancer: the service's one address (HTTPS). */
  apiUrl: string;
  /** The authority of the load balancer's own certificate, for clients to trust; absent with TLS_CERT. */
  caCertFile?: string;
  uiUrl: string;
  temporalAddress: string;
  /** How the service reaches the frontend (its mutual TLS included). */
  temporal: TemporalSettings;
  /** Where PostgreSQL's data really is. */
  postgresDataDir: string;
  namespace: string;
  mongodbUrl: string;
  /** Prometheus endpoints by part: the workers, the APIs (on their METRICS_PORT), Temporal, HAProxy. */
  metricsUrls: Record<string, string>;
  /** Each API replica's own URL, past the load balancer (`api-1`, `api-2`). */
  replicaUrls: Record<(typeof API_REPLICAS)[number], string>;
  /** The apps' full environment (as the processes got it, less PORT and METRICS_PORT). */
  env: NodeJS.ProcessEnv;
  /** Break and restore parts (for scripts/stack/control.ts); each resolves once the part is back. */
  actions: ControlActions;
  pids(): Record<string, number | undefined>;
}

/** The service's processes from dist/ (what the image runs), and the waits until each answers. */
function appProcesses(
  supervisor: Supervisor,
  options: {
    root: string;
    ports: ClusterPorts;
    env: NodeJS.ProcessEnv;
    temporal: TemporalSettings;
    echo?: boolean;
    seeLog: (name: string) => string;
  },
) {
  const { root, ports, env, seeLog, temporal } = options;
  const apps = new Map<AppName, ManagedProcess>();
  const workerProcess = (name: AppName) => WORKER_PROCESSES.find((w) => w.name === name)!;
  const startApp = (name: AppName): ManagedProcess => {
    const entry = name.startsWith('api-') ? 'api/server.js' : workerProcess(name).entry;
    // The replicas sit behind HAProxy, which appends the client's address to X-Forwarded-For.
    const own = {
      METRICS_PORT: String(ports.metrics[name]),
      ...(name.startsWith('api-') && { PORT: String(ports.api[name as 'api-1']), TRUSTED_PROXY_HOPS: '1' }),
    };
    const proc = supervisor.start({
      name,
      command: process.execPath,
      args: [path.join(root, 'dist', entry)],
      cwd: root,
      env: { ...(name.startsWith('api-') ? apiEnv(env) : env), ...own },
      echo: options.echo,
    });
    apps.set(name, proc);
    return proc;
  };
  const appRemedy = (name: AppName) => `${seeLog(name)}; the cluster runs dist/ (npm run build)`;
  const apiReady = (name: (typeof API_REPLICAS)[number]) =>
    startingPart(name, appRemedy(name), () =>
      waitForHttp(`http://127.0.0.1:${ports.api[name]}/readyz`, { what: name, timeoutMs: 120_000, processes: [apps.get(name)!] }),
    );
  /**
   * A worker is up once its health endpoint says so (it polls each of its pool's queues, Temporal
   * answers, its browser or converter is warm), as docker-compose.yml's health check asks, and
   * Temporal sees it poll them.
   */
  const workerUp = (name: (typeof WORKER_PROCESSES)[number]['name']) =>
    startingPart(name, appRemedy(name), async () => {
      const proc = apps.get(name)!;
      await waitForHttp(`http://127.0.0.1:${ports.metrics[name]}/healthz`, {
        what: `${name}'s health`,
        timeoutMs: 180_000,
        processes: [proc],
      });
      return waitForPollers(temporal, poolTaskQueues(workerProcess(name).pool), proc.pid!, {
        timeoutMs: 120_000,
        processes: [proc],
      });
    });
  /**
   * An app's first start, until it is up: again on new ports when another program bound one of its
   * ports first (a worker's METRICS_PORT; a replica's METRICS_PORT or PORT, both picked afresh), as
   * the test stack's parts do. The new ports stay in `ports`, which the front door, the metrics URLs
   * and later restarts read.
   */
  const startUp = (name: AppName) => {
    const metricsPort = {
      get port() {
        return ports.metrics[name];
      },
      set port(fresh: number) {
        ports.metrics[name] = fresh;
      },
    };
    const replica = API_REPLICAS.find((a) => a === name);
    return onAnotherPortIfTaken(
      metricsPort,
      () => {
        startApp(name);
        return replica ? apiReady(replica) : workerUp(name as (typeof WORKER_PROCESSES)[number]['name']);
      },
      async () => {
        await apps.get(name)?.kill();
        if (replica) ports.api[replica] = await freePort();
      },
    );
  };
  return { apps, startApp, apiReady, workerUp, startUp };
}

/** Prometheus endpoints by part. */
function metricsUrlsOf(ports: ClusterPorts, temporal: RunningTemporalServer, lb: RunningLoadBalancer): Record<string, string> {
  const metricsUrls: Record<string, string> = { temporal: temporal.metricsUrl, haproxy: lb.metricsUrl };
  // An API replica's metrics (its requests, charges and its Temporal client's SDK metrics) are on
  // its METRICS_PORT only, never on the port HAProxy routes to.
  for (const a of API_REPLICAS) metricsUrls[a] = `http://127.0.0.1:${ports.metrics[a]}/metrics`;
  for (const w of WORKER_PROCESSES) metricsUrls[w.name] = `http://127.0.0.1:${ports.metrics[w.name]}/metrics`;
  return metricsUrls;
}

export async function startCluster(supervisor: Supervisor, options: ClusterOptions): Promise<Cluster> {
  const { root, ports, tools } = options;
  const namespace = options.namespace ?? 'default';
  const postgresOptions: PostgresOptions = {
    binDir: tools.postgresBin,
    dataDir: path.join(options.dataDir, 'postgres'),
    port: ports.postgres,
    user: 'temporal',
    throwaway: options.throwaway,
  };
  const logDir = supervisor.options.logDir;
  /** What to do when a process did not come up: read its output. */
  const seeLog = (name: string) => `see ${logDir ? path.join(logDir, `${name}.log`) : 'its output above'}`;

  const [firstPostgres, database] = await Promise.all([
    startPostgres(supervisor, postgresOptions),
    options.mongodbUrl
      ? Promise.resolve<RunningDatabase | undefined>(undefined)
      : startingPart('the database (SecantusDB)', `${seeLog('database')}, or set MONGODB_URL to use another`, () =>
          startDatabase(supervisor, { binary: tools.secantusd, port: ports.database, dir: path.join(options.dataDir, 'secantus') }),
        ),
  ]);
  let postgres: RunningPostgres = firstPostgres;
  const mongodbUrl = options.mongodbUrl ?? database!.url;

  const temporalOptions: TemporalServerOptions = {
    root,
    binaries: { server: tools.temporalServer, sqlTool: tools.temporalSqlTool, cli: tools.temporal },
    postgres,
    ports: ports.temporal,
    namespace,
    tls: await makeTemporalTls(path.join(options.dataDir, 'temporal-tls')),
  };
  const startServer = () => startingPart('the Temporal server', seeLog('temporal'), () => startTemporalServer(supervisor, temporalOptions));
  await startingPart(
    'the Temporal schema (deploy/temporal/setup.sh schema)',
    `check that PostgreSQL answers on port ${ports.postgres} (${seeLog('postgres')})`,
    () => setupTemporalSchema(temporalOptions),
  );
  let temporal: RunningTemporalServer = await startServer();

  const env: NodeJS.ProcessEnv = {
    ...localBlobStore(path.join(options.dataDir, 'blobs')),
    ...options.env,
    MONGODB_URL: mongodbUrl,
    ...temporal.clientEnv,
    // Scraped on this machine only.
    METRICS_HOST: '127.0.0.1',
    // Every replica serves the one public address, the balancer's: cookies, sign-in origins and
    // mailed links name it, not a replica's own port (each replica's default).
    PUBLIC_BASE_URL: options.env.PUBLIC_BASE_URL ?? `https://localhost:${ports.loadBalancer}`,
  };
  const { apps, startApp, apiReady, workerUp, startUp } = appProcesses(supervisor, {
    root,
    ports,
    env,
    temporal: temporal.settings,
    echo: options.echo,
    seeLog,
  });

  // Workers first: each bundles the workflow code, the slowest part of a start.
  const appsUp = [...WORKER_PROCESSES.map((w) => startUp(w.name)), ...API_REPLICAS.map(startUp)];
  const [ui] = (await Promise.all([
    startingPart('the Temporal UI', seeLog('temporal-ui'), () =>
      startTemporalUi(supervisor, { root, binary: tools.temporalUiServer, port: ports.ui, temporalEnv: temporal.clientEnv }),
    ),
    ...appsUp,
  ])) as [RunningUi, ...unknown[]];
  const { balancer: lb, caCertFile } = await startFrontDoor(supervisor, {
    root,
    binary: tools.haproxy,
    replicas: API_REPLICAS.map((name) => ({ name, port: ports.api[name] })),
    ports,
    tlsCert: options.tlsCert,
    tlsDir: path.join(options.dataDir, 'tls'),
    seeLog: seeLog('haproxy'),
  });
  const metricsUrls = metricsUrlsOf(ports, temporal, lb);

  const restartTemporal = async (how: 'stop' | 'kill', downMs = 0) => {
    await temporal.process[how]();
    await sleep(downMs);
    temporal = await startServer();
  };
  const restartPostgres = async (downMs: number) => {
    await postgres.process.stop();
    await sleep(downMs);
    postgres = await startPostgres(supervisor, postgresOptions);
  };
  const actions: ControlActions = {
    'restart/temporal': () => restartTemporal('stop'),
    'kill/temporal': () => restartTemporal('kill'),
    'restart/postgres': () => restartPostgres(0),
    'outage/postgres': () => restartPostgres(OUTAGE_MS),
    processes: async () => pids(),
  };
  // Each app process: SIGKILLed (and left down) and started again, on the ports it had: the front
  // door's discovery and the metrics URLs name them.
  for (const name of [...API_REPLICAS, ...WORKER_PROCESSES.map((w) => w.name)] as AppName[]) {
    actions[`kill/${name}`] = () => apps.get(name)!.kill();
    actions[`start/${name}`] = async () => {
      if (apps.get(name)!.running) return;
      startApp(name);
      await (name.startsWith('api-') ? apiReady(name as 'api-1') : workerUp(name as 'worker-core'));
    };
  }
  const pids = () => ({
    ...Object.fromEntries([...apps].map(([name, p]) => [name, p.pid])),
    postgres: postgres.process.pid,
    temporal: temporal.process.pid,
    'temporal-ui': ui.process.pid,
    haproxy: lb.process.pid,
    ...(database ? { database: database.process.pid } : {}),
  });

  return {
    apiUrl: lb.url,
    caCertFile,
    uiUrl: ui.url,
    get temporalAddress() {
      return temporal.address;
    },
    get temporal() {
      return temporal.settings;
    },
    postgresDataDir: postgres.dataDir,
    namespace,
    mongodbUrl,
    metricsUrls,
    replicaUrls: { 'api-1': `http://127.0.0.1:${ports.api['api-1']}`, 'api-2': `http://127.0.0.1:${ports.api['api-2']}` },
    env,
    actions,
    pids,
  };
}
