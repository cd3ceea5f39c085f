//! A guarded client for unit tests of the network tools, built the way lib/network-access.ts
//! builds the worker's: the fixture address 127.0.0.2 allowlisted (as the test stack does), names
//! answered only by the DNS fixture (no query leaves the machine), optionally a test CA trusted;
//! and the page fixtures the page-reading tools' tests fetch from.
import { createGuardedHttp, type GuardedHttp } from '../../lib/guarded-http.js';
import { createResolver } from '../../lib/resolver.js';
import { createTargetGuard, type TargetGuard } from '../../lib/target-guard.js';
import { startDnsServer, type DnsServer } from '../fixtures/dns-server.js';
import { FIXTURE_HOST, startPageServer, type PageServer } from '../fixtures/http-pages.js';
import { temporaryCa } from '../fixtures/tls-certs.js';

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

export interface PageFixtures {
  net: TestNetwork;
  /** The page fixture over plain HTTP. */
  pages: PageServer;
  /** The same pages over HTTPS, with a certificate for fixture.test and 127.0.0.2 from a test CA `net` trusts. */
  securePages: PageServer;
  close(): Promise<void>;
}

/** What the page-reading tools' tests fetch from: a guarded client and the page fixture over HTTP and HTTPS. */
export async function startPageFixtures(): Promise<PageFixtures> {
  const testCa = await temporaryCa(['fixture.test', FIXTURE_HOST]);
  const { ca, leaf } = testCa;
  const net = await startTestNetwork({ ca: ca.cert });
  const pages = await startPageServer();
  const securePages = await startPageServer({ tls: { cert: leaf.cert, key: leaf.key } });
  return {
    net,
    pages,
    securePages,
    async close() {
      await Promise.all([pages.close(), securePages.close(), net.close()]);
      await testCa.close();
    },
  };
}
