//! Runs the given pools in this process until SIGINT/SIGTERM, then drains and exits.
import { NativeConnection } from '@temporalio/worker';
import { loadConfig, temporalConnectOptions } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { connectMongo, ensureIndexes } from '../lib/mongo.js';
import { createNetworkAccess } from '../lib/network-access.js';
import type { Pool } from '../contracts/temporal-names.js';
import { caughtUp } from './caught-up.js';
import { openBlobStore } from '../lib/open-blob-store.js';
import { createPoolWorkers } from './pools.js';
import { createSingleCalls } from '../activities/single-calls.js';
import { workflowBundle as loadWorkflowBundle } from './workflow-bundle.js';
import { installTemporalRuntime } from '../lib/temporal-runtime.js';
import { WORKFLOW_TRACING_MODULE, startTracing } from '../lib/tracing.js';
import { freeLoopbackPort } from '../lib/free-port.js';
import { startOperatorPort } from '../lib/operator-port.js';
import { workerHealthChecks, type WorkerHealthState } from './health.js';
import { queueBacklogRegistry } from './queue-backlog.js';

export async function runPools(pools: Pool[]): Promise<void> {
  const began = performance.now();
  // How long each part of a start took: a restarted worker serves no call until all are done.
  const startMs: Record<string, number> = {};
  const timed = async <T>(what: string, step: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    try {
      return await step();
    } finally {
      startMs[what] = Math.round(performance.now() - t);
    }
  };
  const config = loadConfig();
  const log = createLogger({ name: `worker:${pools.join('+')}`, level: config.logLevel });
  // The SDK's metrics on a loopback port; the operator port (METRICS_PORT) passes them on beside
  // the health endpoint, which answers `starting` until the workers poll.
  const sdkMetricsBind = config.metricsPort ? `127.0.0.1:${await freeLoopbackPort()}` : undefined;
  installTemporalRuntime(log, ['SIGINT', 'SIGTERM'], sdkMetricsBind);
  const health: WorkerHealthState = {};
  const operator = config.metricsPort
    ? await startOperatorPort({
        host: config.metricsHost,
        port: config.metricsPort,
        sdkMetricsUrl: `http://${sdkMetricsBind}/metrics`,
        registry: queueBacklogRegistry({
          connection: () => health.connection,
          namespace: config.temporal.namespace,
          taskQueues: () => [...new Set(health.workers?.map((w) => w.taskQueue))],
        }),
        health: () => workerHealthChecks(health),
        log,
      })
    : undefined;
  const tracing = await startTracing(config.tracing, 'worker', log);

  // Side by side: the database and Temporal are round trips away, the bundle is a file to read.
  const [mongo, connection, { fromCache, ...workflowBundle }] = await Promise.all([
    timed('database', async () => {
      const m = await connectMongo(config.mongodbUrl, { appName: `worker-${pools.join('-')}`, traced: Boolean(tracing) });
      await ensureIndexes(m.db);
      return m;
    }),
    timed('temporal', () => NativeConnection.connect(temporalConnectOptions(config.temporal))),
    timed('bundle', () => loadWorkflowBundle(log, { interceptorModules: tracing ? [WORKFLOW_TRACING_MODULE] : [] })),
  ]);
  health.connection = connection;
  // Chromium, LibreOffice and the upscaling model take the cores for seconds as they start: a
  // restarted worker first serves the calls that queued while it was away (kill/workers in
  // chaos), then starts them. A call that needs one meanwhile starts it.
  const net = createNetworkAccess(config);
  const blobs = await openBlobStore(config.blobStoreUrl, mongo.db);
  let startHeavy!: () => void;
  const heavyStartAfter = new Promise<void>((resolve) => (startHeavy = resolve));
  const singleCalls = createSingleCalls();

  // Together: each pool's start is mostly waiting for its workflow thread to load the SDK and
  // for its tools' processes (LibreOffice, Chromium) to come up, which overlap on several cores.
  const created = await Promise.all(
    pools.map(async (pool) => {
      const w = await timed(pool, () =>
        createPoolWorkers(pool, {
          config,
          db: mongo.db,
          connection,
          log,
          net,
          blobs,
          workflowBundle,
          heavyStartAfter,
          tracing,
          singleCalls,
        }),
      );
      if (!w) log.info({ pool }, 'no tools listed for this pool yet; not polling');
      return w && { pool, ...w };
    }),
  );
  const started = created.filter((w) => w !== null);
  health.workers = started.flatMap((s) => s.workers.map((worker) => ({ worker, taskQueue: worker.options.taskQueue })));
  health.warmth = Object.assign({}, ...started.map((s) => s.warmth ?? {}));
  startMs.total = Math.round(performance.now() - began);
  // Process start to here, imports included (uptime counts from the process's birth).
  startMs.sinceProcessStart = Math.round(process.uptime() * 1000);
  log.info({ pools: started.map((s) => s.pool), startMs, bundleFromCache: fromCache }, 'workers polling');
  const stopping = new AbortController();
  try {
    // Runtime shuts every worker down on SIGINT/SIGTERM; run() resolves once each has drained.
    const workers = started.flatMap((s) => s.workers);
    const running = Promise.all(workers.map((w) => w.run())).finally(() => stopping.abort());
    void caughtUp(workers, { signal: stopping.signal }).then((afterPollingMs) => {
      if (!stopping.signal.aborted) log.info({ afterPollingMs }, 'backlog served: starting the heavy tool processes');
      startHeavy();
    });
    await running;
  } finally {
    await Promise.all(started.map((s) => s.close()));
    await connection.close();
    await mongo.close();
    // Bounded and never rejecting: a collector that is down is one warning line, not a crash.
    await tracing?.shutdown();
    await operator?.close();
    log.info('workers stopped');
  }
  // Drained: what may still hold the event loop (a collector's socket left past the flush's
  // deadline) must not hold the stop past a process manager's grace.
  process.exit(0);
}
