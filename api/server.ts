//! The API process: serves HTTP; each tool call it accepts runs as a workflow on the tool's pool,
//! or, for a quick tool, on this process's own worker of quick calls.
import { hostname } from 'node:os';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../lib/config.js';
import { ClaimCheckCodec } from '../lib/claim-check-codec.js';
import { createLogger } from '../lib/logger.js';
import { createMetrics } from '../lib/metrics.js';
import { connectMongo, ensureIndexes } from '../lib/mongo.js';
import { ensureSchedules } from '../lib/schedules.js';
import { installTemporalRuntime } from '../lib/temporal-runtime.js';
import { createApp } from './app.js';
import { openBlobStore } from '../lib/blob-store.js';
import { createPlans } from '../domain/plans.js';
import { createQuickCallsWorker } from '../workers/pools.js';

const config = loadConfig();
const log = createLogger({ name: 'api', level: config.logLevel });
installTemporalRuntime(log, [], config); // this process handles its own signals below

const mongo = await connectMongo(config.mongodbUrl, { appName: 'api' });
await ensureIndexes(mongo.db);
await createPlans(mongo.db).ensureDefault();
const connection = await NativeConnection.connect({ address: config.temporalAddress });
// An operator reading a call's history sees that an API process started it, and ran it when
// eager start handed it the first workflow task (whose history names the starter).
const identity = `${process.pid}@${hostname()} api`;
const client = new Client({
  connection,
  identity,
  namespace: config.temporalNamespace,
  dataConverter: { payloadCodecs: [new ClaimCheckCodec(mongo.db)] },
});

await ensureSchedules(client);

const blobs = await openBlobStore(config.blobStoreUrl, mongo.db);
// Calls of quick tools that this process starts run here, handed over by eager start.
const quickCalls = config.apiQuickCallSlots > 0 ? await createQuickCallsWorker({ config, db: mongo.db, connection, log, blobs, client, slots: config.apiQuickCallSlots, identity }) : undefined;
const quickCallsRunning = quickCalls?.worker.run().catch((err: unknown) => {
  log.fatal({ err }, 'the quick-calls worker stopped');
  process.exit(1);
});
const app = createApp({ config, db: mongo.db, client, log, metrics: createMetrics(), blobs, eagerQuickCalls: quickCalls !== undefined });
const server = app.listen(config.port, () => log.info({ port: config.port, quickCallSlots: config.apiQuickCallSlots }, 'API listening'));

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  // The quick calls in progress finish; their answers' requests were already served or dropped.
  quickCalls?.worker.shutdown();
  await quickCallsRunning;
  await quickCalls?.close();
  await connection.close();
  await mongo.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
