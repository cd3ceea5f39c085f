//! Runs the given pools in this process until SIGINT/SIGTERM, then drains and exits.
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { connectMongo, ensureIndexes } from '../lib/mongo.js';
import type { Pool } from '../lib/temporal-shared.js';
import { bundleWorkflows, createPoolWorker } from './pools.js';
import { installTemporalRuntime } from '../lib/temporal-runtime.js';

export async function runPools(pools: Pool[]): Promise<void> {
  const config = loadConfig();
  const log = createLogger({ name: `worker:${pools.join('+')}`, level: config.logLevel });
  installTemporalRuntime(log, ['SIGINT', 'SIGTERM'], config);

  const mongo = await connectMongo(config.mongodbUrl, { appName: `worker-${pools.join('-')}` });
  await ensureIndexes(mongo.db);
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const workflowBundle = pools.includes('core') ? await bundleWorkflows(log) : undefined;

  const started = [];
  for (const pool of pools) {
    const w = await createPoolWorker(pool, { config, db: mongo.db, connection, log, workflowBundle });
    if (w) started.push({ pool, ...w });
    else log.info({ pool }, 'no tools listed for this pool yet; not polling');
  }
  log.info({ pools: started.map((s) => s.pool) }, 'workers polling');
  try {
    // Runtime shuts every worker down on SIGINT/SIGTERM; run() resolves once each has drained.
    await Promise.all(started.map((s) => s.worker.run()));
  } finally {
    await Promise.all(started.map((s) => s.close()));
    await connection.close();
    await mongo.close();
    log.info('workers stopped');
  }
}
