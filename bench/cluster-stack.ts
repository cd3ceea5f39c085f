//! The production-shaped stack as a benchmark's target: a throwaway cluster (scripts/stack/cluster.ts:
//! PostgreSQL, the Temporal server, two API replicas behind HAProxy, one process per pool) on free
//! ports under test-output/bench-cluster-<time>/, stopped at the end (PostgreSQL's data, outside it
//! when started by root, deleted); its processes named for the CPU-per-call figures. A cluster that
//! cannot start ends the bench with one line.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchApiKey, settle, type BenchStack } from './stack.js';
import type { StackProcess } from './process-cpu.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

type Tools = { temporal: string; secantusd: string };
type ClusterTools = { temporalServer: string; temporalSqlTool: string; temporalUiServer: string; postgresBin: string; haproxy: string };

/** Preparing or starting the cluster failed: its message, what was started stopped, exit 1; no stack trace. */
async function orExit<T>(step: () => Promise<T>, cleanUp?: () => Promise<void>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    await cleanUp?.();
    console.error(`bench: ${(err as Error).message}`);
    process.exit(1);
  }
}

/** `fn` also gets the Prometheus endpoint of each part (`worker-browser`, `api-1`, `temporal` ...). */
export async function withClusterBenchStack<T>(
  fn: (stack: BenchStack, cluster: { metricsUrls: Record<string, string> }) => Promise<T>,
): Promise<T> {
  // The bootstrap scripts are plain JavaScript without types: imported by URL, typed here.
  const { bootstrap } = (await import(new URL('../scripts/bootstrap.mjs', import.meta.url).href)) as {
    bootstrap: (o: { root: string; log: (l: string) => void }) => Promise<Tools>;
  };
  const { bootstrapCluster } = (await import(new URL('../scripts/bootstrap-cluster.mjs', import.meta.url).href)) as {
    bootstrapCluster: (o: { root: string; log: (l: string) => void }) => Promise<ClusterTools>;
  };
  const { buildIfStale } = (await import(new URL('../scripts/build-if-stale.mjs', import.meta.url).href)) as {
    buildIfStale: (root: string) => Promise<void>;
  };
  const stack = await import('../scripts/stack/index.js');
  const log = (line: string) => console.log(`bootstrap: ${line}`);
  const tools = await orExit(async () => ({ ...(await bootstrap({ root, log })), ...(await bootstrapCluster({ root, log })) }));
  await orExit(() => buildIfStale(root));
  const runDir = path.join(root, 'test-output', `bench-cluster-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const supervisor = new stack.Supervisor({ logDir: path.join(runDir, 'logs') });
  supervisor.stopOnSignals();
  const started = performance.now();
  try {
    const { env, adminToken } = stack.throwawayEnv(
      { address: '', namespace: 'default' },
      { url: '' },
      {
        TARGET_ALLOWLIST: '127.0.0.2/32',
        WEBHOOKS_ALLOW_LOCALHOST: 'true',
        RATE_LIMIT_PER_SECOND: '10000',
        LOG_LEVEL: 'warn',
      },
    );
    const ports = await stack.freeClusterPorts();
    const cluster = await orExit(
      () => stack.startCluster(supervisor, { root, dataDir: path.join(runDir, 'data'), throwaway: true, tools, ports, env }),
      () => supervisor.stopAll(),
    );
    console.log(
      `bench: own cluster ready in ${((performance.now() - started) / 1000).toFixed(1)} s (logs in ${path.relative(process.cwd(), runDir)}/logs)`,
    );
    const processes = Object.entries(cluster.pids())
      .filter(([name]) => name !== 'temporal-ui')
      .map(([name, pid]) => ({ name, pid }))
      .filter((p): p is StackProcess => p.pid !== undefined);
    await settle(processes);
    return await fn(
      {
        apiUrl: cluster.apiUrl,
        adminToken,
        temporal: cluster.temporal,
        processes,
        newApiKey: (credits) => benchApiKey(cluster.apiUrl, adminToken, credits),
      },
      { metricsUrls: cluster.metricsUrls },
    );
  } finally {
    await supervisor.stopAll();
  }
}
