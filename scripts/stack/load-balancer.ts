//! HAProxy in front of the API replicas, configured by deploy/haproxy/haproxy.cfg (the file
//! docker-compose.yml mounts too): round the replicas by least connections, skip a dead one.
import path from 'node:path';
import { assertPortFree, waitForHttp } from './net.js';
import type { ManagedProcess, Supervisor } from './supervisor.js';

export interface LoadBalancerOptions {
  root: string;
  binary: string;
  port: number;
  /** Its own Prometheus metrics (`/metrics`). */
  metricsPort: number;
  /** The API replicas, `host:port` (the config names two). */
  replicas: [string, string];
}

export interface RunningLoadBalancer {
  url: string;
  metricsUrl: string;
  process: ManagedProcess;
}

export async function startLoadBalancer(supervisor: Supervisor, options: LoadBalancerOptions): Promise<RunningLoadBalancer> {
  await assertPortFree(options.port, 'load balancer', 'set PORT to use another one');
  await assertPortFree(options.metricsPort, 'load balancer metrics');
  const dir = path.join(options.root, 'deploy', 'haproxy');
  const proc = supervisor.start({
    name: 'haproxy',
    command: options.binary,
    // -db: foreground, logs to stderr; -W would add a master process we do not need.
    args: ['-db', '-f', path.join(dir, 'haproxy.cfg')],
    env: {
      PATH: process.env.PATH,
      LB_BIND: `127.0.0.1:${options.port}`,
      METRICS_BIND: `127.0.0.1:${options.metricsPort}`,
      API_1: options.replicas[0],
      API_2: options.replicas[1],
      ERRORS_DIR: dir,
    },
    layer: 2, // stops first: no new requests while the replicas drain
    stopTimeoutMs: 5_000,
  });
  const metricsUrl = `http://127.0.0.1:${options.metricsPort}/metrics`;
  await waitForHttp(metricsUrl, { what: 'HAProxy', timeoutMs: 20_000, processes: [proc] });
  return { url: `http://127.0.0.1:${options.port}`, metricsUrl, process: proc };
}
