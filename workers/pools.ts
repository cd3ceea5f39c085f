//! Builds the Temporal worker of each pool from the same code, whether a pool runs in its own
//! process (workers/<pool>.ts) or beside the others (workers/all.ts). A tool pool's workers run
//! whole calls of its tools: the `toolCall` workflow, its ledger steps (and an asynchronous call's
//! outcome) and the tools; one worker per queue the pool's calls wait in, its own and, when it has
//! `queued` tools, its queue of long calls.
import { Worker } from '@temporalio/worker';
import { Client } from '@temporalio/client';
import type { Config } from '../lib/config.js';
import { ClaimCheckCodec } from '../lib/claim-check-codec.js';
import { DatabaseBlobStore } from '../lib/blob-store.js';
import { LONG_CALL_QUEUES, TASK_QUEUES, type Pool, type ToolPool } from '../contracts/temporal-names.js';
import { poolTaskQueues, toolsOfPool, type ToolHandler } from '../domain/tools/index.js';
import { createWebhookFanout } from '../domain/webhooks/index.js';
import { toolDurationRecorder, toolMetricsInterceptor } from './tool-metrics.js';
import { createCallActivities } from '../activities/call-activities.js';
import { createMonitorRuns } from '../activities/monitor-runs.js';
import { workflowBundle as loadWorkflowBundle } from './workflow-bundle.js';
import { WORKFLOW_TRACING_MODULE } from '../lib/tracing.js';
import { createRechargeTrigger } from '../domain/billing/recharge-trigger.js';
import type { Closer, PoolDeps, PoolWorkers, Warmth } from './pool-types.js';

/** The office converter is warm while one of its listeners is ready or converting. */
function officeWarmth(office: { status(): Array<{ state: string }> }): string | null {
  const states = office.status().map((s) => s.state);
  if (states.some((s) => s === 'idle' || s === 'busy')) return null;
  return states.length === 0 ? 'not started yet' : `no listener ready (${[...new Set(states)].join(', ')})`;
}

/**
 * A pool's tools, their modules loaded only by a process that runs that pool: a network or core
 * worker never loads Chromium's driver or the upscaling model's runtime, so it starts sooner and
 * its image can leave them out (Dockerfile, scripts/role-packages.mjs).
 */
async function toolHandlers(
  pool: Exclude<Pool, 'core'>,
  deps: PoolDeps,
): Promise<{ handlers: Record<string, ToolHandler>; close: Closer; warmth?: Warmth }> {
  switch (pool) {
    case 'cpu': {
      const { createCpuResources, createCpuTools } = await import('../activities/cpu/index.js');
      const resources = createCpuResources({ config: deps.config, net: deps.net, log: deps.log, heavyStartAfter: deps.heavyStartAfter });
      const warmth = toolsOfPool('cpu').some((t) => t.name === 'word-to-pdf')
        ? { converter: async () => officeWarmth(resources.office) }
        : undefined;
      return { handlers: createCpuTools(resources), close: () => resources.close(), warmth };
    }
    case 'network': {
      const [{ createNetworkTools }, { createReadingPool }] = await Promise.all([
        import('../activities/network/index.js'),
        import('../activities/network/reading-pool.js'),
      ]);
      const readings = createReadingPool({ threads: deps.config.readingThreads, startAfter: deps.heavyStartAfter });
      const handlers = createNetworkTools({ net: deps.net, db: deps.db, config: deps.config, reader: readings.read });
      return { handlers, close: () => readings.close() };
    }
    case 'browser': {
      const { createBrowserTools } = await import('../activities/browser/index.js');
      const browser = createBrowserTools({ config: deps.config, net: deps.net, log: deps.log, heavyStartAfter: deps.heavyStartAfter });
      return { handlers: browser.handlers, close: () => browser.close(), warmth: { browser: async () => browser.pool.health() } };
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

/**
 * The cpu pool's workflow task pollers (the SDK's default, named because its slots count them): a
 * poller holds a slot while it waits for a task, so an idle worker has free only the slots beyond
 * its pollers, and a batch item's eager start (activities/batch-start.ts) is taken only when one is
 * free. With the calls' slots alone, almost none was (docs/BENCHMARKS.md).
 */
const CPU_WORKFLOW_TASK_POLLERS = 10;

/**
 * Workflow tasks of calls one tool worker holds at once. A task holds its slot while its local
 * activities (ledger steps, a short tool) run, so this bounds the calls in progress on the worker;
 * beyond it calls wait in Temporal's queue, where another replica can take them. A short call's
 * slot is mostly spent waiting for the database and Temporal, not computing (the tool work itself
 * is bounded by the pool's threads, CPU_CONCURRENCY), so the cpu pool holds eight per thread, and
 * its pollers' slots beside them (under load those too go to calls).
 */
function callSlots(pool: ToolPool, config: Config): number {
  switch (pool) {
    case 'cpu':
      return Math.max(16, 8 * config.cpuConcurrency) + CPU_WORKFLOW_TASK_POLLERS;
    case 'network':
      return config.networkConcurrency;
    case 'browser':
      // A capture holds its call's task for its whole run; one slot beyond the browser's pages
      // lets a call's ledger steps overlap the other captures.
      return config.browserConcurrency + 1;
  }
}

/** Options every worker of calls shares, named for what each one buys. */
const CALL_WORKER_OPTIONS = {
  // Most calls end in their first workflow task; a queued tool's call comes back once more.
  maxCachedWorkflows: 500,
  // A call's next workflow task waits this long for the worker that ran its previous one, then
  // goes to any worker of the pool: after a crash, a retry, not a deadline.
  stickyQueueScheduleToStartTimeout: '2s',
} as const;

export async function createPoolWorkers(pool: Pool, deps: PoolDeps): Promise<PoolWorkers | null> {
  const common = {
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: TASK_QUEUES[pool],
    dataConverter: { payloadCodecs: [new ClaimCheckCodec(deps.db)] },
  };
  const client =
    deps.client ??
    new Client({
      connection: deps.connection,
      namespace: common.namespace,
      dataConverter: common.dataConverter,
      interceptors: deps.tracing?.temporal.client,
    });
  const workflowBundle =
    deps.workflowBundle ?? (await loadWorkflowBundle(deps.log, { interceptorModules: deps.tracing ? [WORKFLOW_TRACING_MODULE] : [] }));
  const traced = { sinks: deps.tracing?.temporal.sinks ?? {} };
  // A charge that takes an account below its auto-recharge threshold wakes its recharge workflow.
  const { onRechargeDue } = createRechargeTrigger({ db: deps.db, client, log: deps.log });
  const tracedActivities = deps.tracing?.temporal.activityInterceptors ?? [];
  if (pool === 'core') {
    // Its modules (webhooks, billing, mail, batches) load only here: the tool pools start without them.
    const { createCoreWorkers } = await import('./core-pool.js');
    return createCoreWorkers(deps, { common, client, workflowBundle, traced, tracedActivities, onRechargeDue });
  }
  const { handlers, close, warmth } = await toolHandlers(pool, deps);
  const served = listed(pool, handlers);
  if (Object.keys(served).length === 0) {
    await close();
    return null;
  }
  const concurrency = { cpu: deps.config.cpuConcurrency, network: deps.config.networkConcurrency, browser: deps.config.browserConcurrency }[
    pool
  ];
  const slots = callSlots(pool, deps.config);
  // Events of the ledger and of asynchronous calls go to the webhook fan-out; delivery itself is
  // the core pool's.
  const onEvent = createWebhookFanout({ db: deps.db, client, log: deps.log }).onEvent;
  const onToolDone = toolDurationRecorder();
  const blobs = deps.blobs ?? new DatabaseBlobStore(deps.db);
  const monitorRuns = createMonitorRuns({
    db: deps.db,
    client,
    blobs,
    secretKey: deps.config.secretKey,
    baseUrl: deps.config.publicBaseUrl,
    onEvent,
  });
  const calls = {
    ...common,
    ...CALL_WORKER_OPTIONS,
    ...traced,
    workflowBundle,
    activities: createCallActivities(deps.db, served, {
      onEvent,
      onToolDone,
      blobs,
      batchItems: { client, secretKey: deps.config.secretKey, yieldMs: deps.config.batchYieldMs, eagerStarts: !deps.client },
      singleCalls: deps.singleCalls,
      destinations: { secretKey: deps.config.secretKey, guard: deps.net.guard },
      onRechargeDue,
      monitorRuns,
    }),
    interceptors: { activity: [...tracedActivities, toolMetricsInterceptor(new Set(Object.keys(served)), onToolDone)] },
    // Draining on SIGTERM: polling stops at once and the calls already running may finish
    // (the SDK's default cancels them at once, leaving their retry to another worker).
    shutdownGraceTime: Math.max(...toolsOfPool(pool).map((t) => t.timeoutMs)),
  };
  const creating = [
    Worker.create({
      ...calls,
      maxConcurrentWorkflowTaskExecutions: slots,
      ...(pool === 'cpu' ? { workflowTaskPollerBehavior: { type: 'simple-maximum' as const, maximum: CPU_WORKFLOW_TASK_POLLERS } } : {}),
      // Each call runs one local activity at a time (its step, or a ledger step or tool of older calls).
      maxConcurrentLocalActivityExecutions: slots,
      // The tools of queued tools' calls started before the pool had a queue of long calls.
      maxConcurrentActivityTaskExecutions: concurrency,
    }),
  ];
  if (poolTaskQueues(pool).includes(LONG_CALL_QUEUES[pool])) {
    // Long calls, each holding its task for its whole step: as many as the tools work on at once,
    // and one more whose reserve or commit overlaps them; the rest wait in Temporal's queue, where
    // another replica can take them.
    const longSlots = concurrency + 1;
    creating.push(
      Worker.create({
        ...calls,
        taskQueue: LONG_CALL_QUEUES[pool],
        maxConcurrentWorkflowTaskExecutions: longSlots,
        maxConcurrentLocalActivityExecutions: longSlots,
        // Nothing schedules activities on this queue, and it holds a few calls: few pollers.
        enableNonLocalActivities: false,
        maxConcurrentWorkflowTaskPolls: 2,
      }),
    );
  }
  // Created together: each mostly waits for its workflow thread to load the bundle, and the
  // threads start side by side (the pool polls about half a second sooner with two queues).
  const workers = await Promise.all(creating);
  const closeAll = async () => {
    await Promise.all([close(), monitorRuns.close()]);
  };
  return { workers, close: closeAll, warmth };
}
