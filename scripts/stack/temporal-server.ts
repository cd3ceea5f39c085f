//! The Temporal server as production runs it: the release built from its Go module, on
//! PostgreSQL (persistence and SQL visibility), configured by deploy/temporal/utility-tools.yaml
//! with deploy/temporal-dynamic-config.yaml, its schema and namespace set up by
//! deploy/temporal/setup.sh (the same files docker-compose.yml uses); and the Temporal UI server.
//! Given certificates (temporal-tls.ts), its frontend requires mutual TLS, and every client here
//! (the CLI of setup.sh, the waits, the UI server) connects with the service's own settings.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { temporalConnectOptions, temporalSettings, type TemporalSettings } from '../../lib/config-temporal.js';
import { assertPortFree, waitForHttp, waitUntil } from './net.js';
import type { RunningPostgres } from './postgres.js';
import { waitForTemporal } from './services.js';
import type { ManagedProcess, Supervisor } from './supervisor.js';
import { temporalClientTlsEnv, temporalServerTlsEnv, type TemporalTlsFiles } from './temporal-tls.js';

const execFileAsync = promisify(execFile);

/** Ports of the four services in one process, their membership ring and metrics. */
export interface TemporalServerPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
  /** Prometheus metrics of the server (`/metrics`). */
  metrics: number;
}

export interface TemporalServerOptions {
  root: string;
  /** temporal-server, temporal-sql-tool (one folder) and the `temporal` CLI. */
  binaries: { server: string; sqlTool: string; cli: string };
  postgres: Pick<RunningPostgres, 'host' | 'port' | 'user'>;
  ports: TemporalServerPorts;
  namespace: string;
  /** The frontend's mutual TLS; plain TCP without. */
  tls?: TemporalTlsFiles;
  timeoutMs?: number;
}

export interface RunningTemporalServer {
  address: string;
  namespace: string;
  /** How a client of the service's reaches it, as lib/config-temporal.ts reads `clientEnv`. */
  settings: TemporalSettings;
  /** The service's variables for it: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and, with TLS, TEMPORAL_TLS_*. */
  clientEnv: Record<string, string>;
  metricsUrl: string;
  process: ManagedProcess;
}

/** The service's variables for the frontend (docs/CONFIGURATION.md), as an operator would set them. */
export function temporalClientEnv(options: Pick<TemporalServerOptions, 'ports' | 'namespace' | 'tls'>): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: `127.0.0.1:${options.ports.frontend}`,
    TEMPORAL_NAMESPACE: options.namespace,
    ...(options.tls && temporalClientTlsEnv(options.tls)),
  };
}

/** The environment deploy/temporal/utility-tools.yaml and setup.sh read (the images' names). */
function serverEnv(options: TemporalServerOptions): NodeJS.ProcessEnv {
  const { ports, postgres } = options;
  const binDirs = [path.dirname(options.binaries.sqlTool), path.dirname(options.binaries.cli)];
  return {
    PATH: [...binDirs, process.env.PATH].join(path.delimiter),
    HOME: process.env.HOME,
    POSTGRES_SEEDS: postgres.host,
    DB_PORT: String(postgres.port),
    POSTGRES_USER: postgres.user,
    POSTGRES_PWD: '',
    BIND_ON_IP: '127.0.0.1',
    FRONTEND_GRPC_PORT: String(ports.frontend),
    FRONTEND_HTTP_PORT: String(ports.frontendHttp),
    FRONTEND_MEMBERSHIP_PORT: String(ports.frontendMembership),
    HISTORY_GRPC_PORT: String(ports.history),
    HISTORY_MEMBERSHIP_PORT: String(ports.historyMembership),
    MATCHING_GRPC_PORT: String(ports.matching),
    MATCHING_MEMBERSHIP_PORT: String(ports.matchingMembership),
    WORKER_GRPC_PORT: String(ports.worker),
    WORKER_MEMBERSHIP_PORT: String(ports.workerMembership),
    PROMETHEUS_ENDPOINT: `127.0.0.1:${ports.metrics}`,
    DYNAMIC_CONFIG_FILE_PATH: path.join(options.root, 'deploy', 'temporal-dynamic-config.yaml'),
    // The server's periodic version check calls out to the internet, which this service never needs.
    TEMPORAL_VERSION_CHECK_DISABLED: '1',
    ...(options.tls && temporalServerTlsEnv(options.tls)),
    // setup.sh's `temporal` CLI: a client like the service, with its settings.
    ...temporalClientEnv(options),
  };
}

/** deploy/temporal/setup.sh `schema` or `namespace`, failing with its output. */
async function setup(options: TemporalServerOptions, step: 'schema' | 'namespace'): Promise<void> {
  const script = path.join(options.root, 'deploy', 'temporal', 'setup.sh');
  try {
    await execFileAsync('sh', [script, step], { env: serverEnv(options), timeout: 120_000 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`deploy/temporal/setup.sh ${step} failed: ${e.message}\n${(e.stdout ?? '') + (e.stderr ?? '')}`.trim());
  }
}

/** Creates or upgrades the schema (idempotent); run before the first start of a database. */
export function setupTemporalSchema(options: TemporalServerOptions): Promise<void> {
  return setup(options, 'schema');
}

/** Starts the server; on a fresh database also the namespace and search attributes. */
export async function startTemporalServer(supervisor: Supervisor, options: TemporalServerOptions): Promise<RunningTemporalServer> {
  const hints: Partial<Record<keyof TemporalServerPorts, string>> = {
    frontend: 'another Temporal server? stop it, or set TEMPORAL_PORT to use another port',
  };
  for (const [what, port] of Object.entries(options.ports))
    await assertPortFree(port, `Temporal ${what}`, hints[what as keyof TemporalServerPorts]);
  const proc = supervisor.start({
    name: 'temporal',
    command: options.binaries.server,
    args: ['--root', options.root, '--config', 'deploy/temporal', '--env', 'utility-tools', '--allow-no-auth', 'start'],
    env: serverEnv(options),
    layer: 0,
    stopTimeoutMs: 20_000,
  });
  const clientEnv = temporalClientEnv(options);
  const settings = temporalSettings(clientEnv);
  const { address } = settings;
  const timeoutMs = options.timeoutMs ?? 120_000;
  await waitUntil(
    async () => {
      const connection = await Connection.connect({ ...temporalConnectOptions(settings), connectTimeout: '2s' });
      try {
        return (await connection.healthService.check({})).status === 1; // SERVING
      } finally {
        await connection.close();
      }
    },
    { what: `Temporal server at ${address}`, timeoutMs, processes: [proc] },
  );
  await setup(options, 'namespace');
  await waitForTemporal(settings, { timeoutMs, processes: [proc] });
  return {
    address,
    namespace: options.namespace,
    settings,
    clientEnv,
    metricsUrl: `http://127.0.0.1:${options.ports.metrics}/metrics`,
    process: proc,
  };
}

export interface RunningUi {
  url: string;
  process: ManagedProcess;
}

/** The Temporal UI server against the given frontend (`temporalEnv`: the service's variables for it), configured by deploy/temporal/ui.yaml. */
export async function startTemporalUi(
  supervisor: Supervisor,
  options: { root: string; binary: string; port: number; temporalEnv: Record<string, string> },
): Promise<RunningUi> {
  await assertPortFree(options.port, 'Temporal UI', 'set TEMPORAL_UI_PORT to use another one');
  const proc = supervisor.start({
    name: 'temporal-ui',
    command: options.binary,
    args: ['--root', options.root, '--config', 'deploy/temporal', '--env', 'ui', 'start'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...options.temporalEnv,
      TEMPORAL_UI_PORT: String(options.port),
    },
    layer: 1,
    stopTimeoutMs: 5_000,
  });
  const url = `http://localhost:${options.port}`;
  await waitForHttp(`http://127.0.0.1:${options.port}/`, { what: 'Temporal UI', timeoutMs: 60_000, processes: [proc] });
  return { url, process: proc };
}
