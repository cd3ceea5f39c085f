//! HAProxy in front of the API replicas, configured by deploy/haproxy/haproxy.cfg (the file
//! docker-compose.yml mounts too): TLS with HSTS, the replicas found through DNS (an SRV name
//! here: scripts/stack/discovery-dns.ts), rounded by least connections, a dead one skipped.
import path from 'node:path';
import { assertPortFree, waitForHttp } from './net.js';
import type { ManagedProcess, Supervisor } from './supervisor.js';

export interface LoadBalancerOptions {
  root: string;
  binary: string;
  port: number;
  /** Its own Prometheus metrics (`/metrics`). */
  metricsPort: number;
  /** HAProxy's certificate: the chain, then its key (PEM). */
  tlsCert: string;
  /** The DNS that lists the replicas (`address:port`) and the name it lists them under. */
  discovery: { dnsServer: string; service: string };
  /** The most replicas routed to. */
  slots: number;
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
      TLS_CERT: options.tlsCert,
      DNS_SERVER: options.discovery.dnsServer,
      API_SERVICE: options.discovery.service,
      API_SLOTS: String(options.slots),
      ERRORS_DIR: dir,
    },
    layer: 2, // stops first: no new requests while the replicas drain
    stopTimeoutMs: 5_000,
  });
  const metricsUrl = `http://127.0.0.1:${options.metricsPort}/metrics`;
  await waitForHttp(metricsUrl, { what: 'HAProxy', timeoutMs: 20_000, processes: [proc] });
  // The name the certificate carries (scripts/stack/local-tls.ts), as a browser would ask for it.
  return { url: `https://localhost:${options.port}`, metricsUrl, process: proc };
}
