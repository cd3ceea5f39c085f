//! What the production shape on this machine consists of and where each part listens: the app
//! processes (two API replicas, one process per pool, the cpu pool twice) and a free port for every
//! part of a throwaway cluster (scripts/stack/cluster.ts starts them).
import { freeLowPort, freePort } from './net.js';
import type { TemporalServerPorts } from './temporal-server.js';

/** The app processes: two API replicas and one process per pool, the cpu pool twice (docker-compose.yml's services). */
export const API_REPLICAS = ['api-1', 'api-2'] as const;
export const WORKER_PROCESSES = [
  { name: 'worker-core', entry: 'workers/core.js', pool: 'core' },
  { name: 'worker-cpu-1', entry: 'workers/cpu.js', pool: 'cpu' },
  { name: 'worker-cpu-2', entry: 'workers/cpu.js', pool: 'cpu' },
  { name: 'worker-network', entry: 'workers/network.js', pool: 'network' },
  { name: 'worker-browser', entry: 'workers/browser.js', pool: 'browser' },
] as const;
export type AppName = (typeof API_REPLICAS)[number] | (typeof WORKER_PROCESSES)[number]['name'];

export interface ClusterPorts {
  loadBalancer: number;
  loadBalancerMetrics: number;
  /** The DNS (UDP) that lists the API replicas to the load balancer. */
  discoveryDns: number;
  ui: number;
  postgres: number;
  /** SecantusDB's, when the cluster runs its own. */
  database: number;
  temporal: TemporalServerPorts;
  /** HTTP port of each API replica. */
  api: Record<(typeof API_REPLICAS)[number], number>;
  /** METRICS_PORT of each worker process and of each API replica's Temporal client. */
  metrics: Record<AppName, number>;
}

/** Free ports for every part (a throwaway cluster; start:cluster keeps its set in .data/). */
export async function freeClusterPorts(): Promise<ClusterPorts> {
  const temporal = {} as TemporalServerPorts;
  for (const key of [
    'frontend',
    'frontendHttp',
    'frontendMembership',
    'history',
    'historyMembership',
    'matching',
    'matchingMembership',
    'worker',
    'workerMembership',
    'metrics',
  ] as const) {
    // Temporal keeps its services' ports in a smallint column.
    temporal[key] = await freeLowPort();
  }
  const api = { 'api-1': await freePort(), 'api-2': await freePort() };
  const metrics = {} as ClusterPorts['metrics'];
  for (const name of [...API_REPLICAS, ...WORKER_PROCESSES.map((w) => w.name)]) metrics[name] = await freePort();
  return {
    loadBalancer: await freePort(),
    loadBalancerMetrics: await freePort(),
    discoveryDns: await freePort(),
    ui: await freePort(),
    postgres: await freePort(),
    database: await freePort(),
    temporal,
    api,
    metrics,
  };
}
