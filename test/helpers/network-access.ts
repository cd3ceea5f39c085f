//! A guarded client for unit tests of the network tools, built the way lib/network-access.ts
//! builds the worker's: the fixture address 127.0.0.2 allowlisted (as the test stack does), names
//! answered only by the DNS fixture (no query leaves the machine), optionally a test CA trusted.
import { createGuardedHttp, type GuardedHttp } from '../../lib/guarded-http.js';
import { createResolver } from '../../lib/resolver.js';
import { createTargetGuard, type TargetGuard } from '../../lib/target-guard.js';
import { startDnsServer, type DnsServer } from '../fixtures/dns-server.js';

export interface TestNetwork {
  http: GuardedHttp;
  guard: TargetGuard;
  dns: DnsServer;
  close(): Promise<void>;
}

export const TEST_ALLOWLIST = ['127.0.0.2/32'];

export async function startTestNetwork(options: { ca?: string } = {}): Promise<TestNetwork> {
  const dns = await startDnsServer();
  const guard = createTargetGuard({ allowlist: TEST_ALLOWLIST, resolver: createResolver({ servers: [dns.address] }) });
  return { http: createGuardedHttp({ guard, ca: options.ca }), guard, dns, close: () => dns.close() };
}
