//! The one way a process reaches the outside: the service resolver, the target guard, and the
//! guarded HTTP client and TCP/TLS sockets, built once per process from configuration.
import type { Config } from './config.js';
import { createGuardedHttp, type GuardedHttp } from './guarded-http.js';
import { createGuardedSockets, type GuardedSockets } from './guarded-sockets.js';
import { createResolver, type DnsResolver } from './resolver.js';
import { createTargetGuard, type TargetGuard } from './target-guard.js';

export interface NetworkAccess {
  resolver: DnsResolver;
  guard: TargetGuard;
  http: GuardedHttp;
  sockets: GuardedSockets;
}

export function createNetworkAccess(config: Pick<Config, 'dnsServers' | 'targetAllowlist'>): NetworkAccess {
  const resolver = createResolver({ servers: config.dnsServers });
  const guard = createTargetGuard({ allowlist: config.targetAllowlist, resolver });
  return { resolver, guard, http: createGuardedHttp({ guard }), sockets: createGuardedSockets({ guard }) };
}
