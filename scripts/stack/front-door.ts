//! The cluster's front door: HAProxy serving HTTPS (the operator's certificate, or one of this
//! machine's own: local-tls.ts) in front of the API replicas, which it finds through a DNS of the
//! stack's own (discovery-dns.ts), started once the API answers through it.
import { readFileSync } from 'node:fs';
import type { Supervisor } from './supervisor.js';
import { startDiscoveryDns } from './discovery-dns.js';
import { startLoadBalancer, type RunningLoadBalancer } from './load-balancer.js';
import { ensureLocalTls, trustAuthority } from './local-tls.js';
import { waitForHttp } from './net.js';
import { startingPart } from './start-error.js';

export interface FrontDoorOptions {
  root: string;
  /** HAProxy. */
  binary: string;
  /** Each API replica the DNS lists. */
  replicas: { name: string; port: number }[];
  ports: { loadBalancer: number; loadBalancerMetrics: number; discoveryDns: number };
  /** HAProxy's certificate and key (PEM); without it, this machine's own, kept in `tlsDir`. */
  tlsCert?: string;
  tlsDir: string;
  /** Where to look when it did not start. */
  seeLog: string;
}

export interface FrontDoor {
  balancer: RunningLoadBalancer;
  /** The authority a client trusts, when the certificate is this machine's own. */
  caCertFile?: string;
}

export function startFrontDoor(supervisor: Supervisor, options: FrontDoorOptions): Promise<FrontDoor> {
  const { ports } = options;
  return startingPart('the load balancer (HAProxy)', options.seeLog, async () => {
    const tls = options.tlsCert ? { pemFile: options.tlsCert, caCertFile: undefined } : await ensureLocalTls(options.tlsDir);
    const dns = await startDiscoveryDns(
      ports.discoveryDns,
      options.replicas.map(({ name, port }) => ({ name, host: '127.0.0.1', port })),
    );
    supervisor.afterStopAll(() => void dns.close());
    // The stack's own process (npm test, a bench) calls the service through the balancer.
    if (tls.caCertFile) trustAuthority(readFileSync(tls.caCertFile, 'utf8'));
    const balancer = await startLoadBalancer(supervisor, {
      root: options.root,
      binary: options.binary,
      port: ports.loadBalancer,
      metricsPort: ports.loadBalancerMetrics,
      tlsCert: tls.pemFile,
      discovery: { dnsServer: dns.address, service: dns.service },
      slots: 8,
    });
    await waitForHttp(`${balancer.url}/readyz`, {
      what: 'the API through the load balancer',
      timeoutMs: 30_000,
      processes: [balancer.process],
    });
    return { balancer, caCertFile: tls.caCertFile };
  });
}
