//! Builds the Temporal worker of each pool from the same code, whether a pool runs in its own
//! process (workers/<pool>.ts), beside the others (workers/all.ts) or inside the API.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { Config } from '../lib/config.js';
import { ClaimCheckCodec } from '../lib/claim-check-codec.js';
import type { Logger } from '../lib/logger.js';
import { sdkLogger } from '../lib/temporal-runtime.js';
import { TASK_QUEUES, type Pool } from '../lib/temporal-shared.js';
import { toolActivities } from '../activities/tool-activities.js';
import { toolsOfPool } from '../domain/catalogue.js';
import type { ToolHandler } from '../lib/tool-handler.js';
import { createCallKeys } from '../domain/call-keys.js';
import { createCoreActivities } from '../activities/core/index.js';
import { webhookWiring } from '../activities/core/webhooks.js';
import { createCpuResources, createCpuTools } from '../activities/cpu/index.js';
import { createNetworkTools } from '../activities/network/index.js';
import { createReadingPool } from '../activities/network/reading-pool.js';
import { createBrowserTools } from '../activities/browser/index.js';
import { createNetworkAccess } from '../lib/network-access.js';
import { toolMetricsInterceptor } from './tool-metrics.js';

export interface PoolDeps {
  config: Config;
  db: Db;
  connection: NativeConnection;
  log: Logger;
  /** A workflow bundle built once per process (only the core pool needs it). */
  workflowBundle?: WorkflowBundle;
  /** Client for webhook fan-out from the core pool; made on `connection` when absent. */
  client?: Client;
}

/** Releases what a pool's tools hold (thread pools, browsers, office listeners). */
type Closer = () => Promise<void>;

export async function bundleWorkflows(log: Logger): Promise<WorkflowBundle> {
  const workflowsPath = fileURLToPath(new URL(`../workflows/index${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));
  // Webpack's build listing is logged at INFO; the service logs it at debug.
  const quiet = log.child({ component: 'workflow-bundler' });
  return bundleWorkflowCode({ workflowsPath, logger: { ...sdkLogger(quiet), info: (m, meta) => quiet.debug(meta ?? {}, m) } });
}

function toolHandlers(pool: Exclude<Pool, 'core'>, deps: PoolDeps): { handlers: Record<string, ToolHandler>; close: Closer } {
  switch (pool) {
    case 'cpu': {
      const resources = createCpuResources({ config: deps.config, net: createNetworkAccess(deps.config), log: deps.log });
      return { handlers: createCpuTools(resources), close: () => resources.close() };
    }
    case 'network': {
      const readings = createReadingPool({ threads: deps.config.readingThreads });
      const handlers = createNetworkTools({ net: createNetworkAccess(deps.config), db: deps.db, config: deps.config, reader: readings.read });
      return { handlers, close: () => readings.close() };
    }
    case 'browser': {
      const browser = createBrowserTools({ config: deps.config, net: createNetworkAccess(deps.config), log: deps.log });
      return { handlers: browser.handlers, close: () => browser.close() };
    }
    default:
      return { handlers: {}, close: async () => {} };
  }
}

/** Only tools listed in the catalogue are served: a handler without an entry stays dark. */
function listed(pool: Exclude<Pool, 'core'>, handlers: Record<string, ToolHandler>) {
  const names = new Set(toolsOfPool(pool).map((t) => t.name));
  return Object.fromEntries(Object.entries(handlers).filter(([name]) => names.has(name)));
}

export async function createPoolWorker(pool: Pool, deps: PoolDeps): Promise<{ worker: Worker; close: Closer } | null> {
  const common = {
    connection: deps.connection,
    namespace: deps.config.temporalNamespace,
    taskQueue: TASK_QUEUES[pool],
    dataConverter: { payloadCodecs: [new ClaimCheckCodec(deps.db)] },
  };
  if (pool === 'core') {
    const client = deps.client ?? new Client({ connection: deps.connection, namespace: common.namespace, dataConverter: common.dataConverter });
    const worker = await Worker.create({
      ...common,
      workflowBundle: deps.workflowBundle ?? (await bundleWorkflows(deps.log)),
      activities: createCoreActivities(deps.db, webhookWiring({ config: deps.config, db: deps.db, client, log: deps.log })),
      maxCachedWorkflows: 2_000,
      maxConcurrentWorkflowTaskExecutions: 100,
      maxConcurrentLocalActivityExecutions: 200,
    });
    return { worker, close: async () => {} };
  }
  const { handlers, close } = toolHandlers(pool, deps);
  const served = listed(pool, handlers);
  if (Object.keys(served).length === 0) {
    await close();
    return null;
  }
  const concurrency = { cpu: deps.config.cpuConcurrency, network: deps.config.networkConcurrency, browser: deps.config.browserConcurrency }[pool];
  const worker = await Worker.create({
    ...common,
    activities: toolActivities(served, { callKeys: createCallKeys(deps.db) }),
    interceptors: { activity: [toolMetricsInterceptor()] },
    maxConcurrentActivityTaskExecutions: concurrency,
    // Draining on SIGTERM: polling stops at once and the calls already running may finish
    // (the SDK's default cancels them at once, leaving their retry to another worker).
    shutdownGraceTime: Math.max(...toolsOfPool(pool).map((t) => t.timeoutMs)),
  });
  return { worker, close };
}
