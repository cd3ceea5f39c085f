//! The API process: serves HTTP; each tool call it accepts runs as a workflow on the tool's pool.
import { Client } from '@temporalio/client';
// The connection's own module: the package's index loads the workflow bundler, which the API never runs.
import { NativeConnection } from '@temporalio/worker/lib/connection.js';
import { loadConfig, temporalConnectOptions } from '../lib/config.js';
import { ClaimCheckCodec } from '../lib/claim-check-codec.js';
import { createLogger } from '../lib/logger.js';
import { createMetrics } from '../lib/metrics.js';
import { freeLoopbackPort } from '../lib/free-port.js';
import { drainOnClose } from '../lib/http-drain.js';
import { startOperatorPort } from '../lib/operator-port.js';
import { connectMongo, ensureIndexes } from '../lib/mongo.js';
import { ensureSchedules } from '../domain/upkeep-schedules.js';
import { installTemporalRuntime } from '../lib/temporal-runtime.js';
import { createApp } from './app.js';
import { openBlobStore } from '../lib/open-blob-store.js';
import { createPlans } from '../domain/plans/index.js';
import { startTracing } from '../lib/tracing.js';

const config = loadConfig();
const log = createLogger({ name: 'api', level: config.logLevel });
// The Temporal client's SDK metrics on a loopback port, passed on by the operator port below.
const sdkMetricsBind = config.metricsPort ? `127.0.0.1:${await freeLoopbackPort()}` : undefined;
installTemporalRuntime(log, [], sdkMetricsBind); // this process handles its own signals below
const tracing = await startTracing(config.tracing, 'api', log);

const mongo = await connectMongo(config.mongodbUrl, { appName: 'api', traced: Boolean(tracing) });
await ensureIndexes(mongo.db);
await createPlans(mongo.db).ensureDefault();
const connection = await NativeConnection.connect(temporalConnectOptions(config.temporal));
const client = new Client({
  connection,
  namespace: config.temporal.namespace,
  dataConverter: { payloadCodecs: [new ClaimCheckCodec(mongo.db)] },
  interceptors: tracing?.temporal.client,
});

await ensureSchedules(client, { billing: Boolean(config.stripe) });
if (!config.stripe)
  log.info(
    'payments off: STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are unset (credit packs are listed, checkout answers 409 payments_not_configured)',
  );

const blobs = await openBlobStore(config.blobStoreUrl, mongo.db);
const metrics = createMetrics();
const app = createApp({ config, db: mongo.db, client, log, metrics, blobs, tracer: tracing?.tracer });
// The metrics (credits charged among them) only on METRICS_PORT, never on the public port.
const operator = config.metricsPort
  ? await startOperatorPort({
      host: config.metricsHost,
      port: config.metricsPort,
      sdkMetricsUrl: `http://${sdkMetricsBind}/metrics`,
      registry: metrics.registry,
      log,
    })
  : undefined;
const server = app.listen(config.port, () =>
  log.info({ port: config.port, traces: config.tracing ? config.tracing.tracesUrl : 'off' }, 'API listening'),
);
const drain = drainOnClose(server);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  await drain();
  await operator?.close();
  await connection.close();
  await mongo.close();
  // Bounded and never rejecting: a collector that is down is one warning line, not a crash.
  await tracing?.shutdown();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
