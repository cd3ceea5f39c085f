//! A browser pool for unit tests of the browser tools, built the way activities/browser/index.ts
//! builds the worker's: the system Chromium behind a filtering proxy that uses the test network's
//! target guard (127.0.0.2 allowlisted, names from the DNS fixture) and the shipped ad host list.
import { X509Certificate, createHash } from 'node:crypto';
import { loadAdHostList } from '../../activities/browser/ad-hosts.js';
import { createBrowserPool, type BrowserPoolHandle, type BrowserPoolOptions } from '../../activities/browser/browser-pool.js';
import { createFilteringProxy, type FilteringProxy } from '../../activities/browser/filtering-proxy.js';
import { chromiumPath } from '../../lib/config.js';
import { startTestNetwork, type TestNetwork } from './network-access.js';

/** The binary the tests drive: CHROMIUM_PATH when set, as for the worker. */
export const TEST_CHROMIUM = chromiumPath();

export interface TestBrowser {
  net: TestNetwork;
  proxy: FilteringProxy;
  pool: BrowserPoolHandle;
  close(): Promise<void>;
}

/**
 * Chromium's flag trusting one certificate's key: the tests' HTTPS fixtures are signed by a CA
 * Chromium does not know, and Chromium (unlike Node) takes no CA file.
 */
export function trustCertificateFlag(certPem: string): string {
  const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return `--ignore-certificate-errors-spki-list=${createHash('sha256').update(spki).digest('base64')}`;
}

export async function startTestBrowser(
  options: Partial<Pick<BrowserPoolOptions, 'concurrency' | 'recycleAfter' | 'extraArgs'>> = {},
): Promise<TestBrowser> {
  const net = await startTestNetwork();
  const proxy = createFilteringProxy({ guard: net.guard, adHosts: loadAdHostList() });
  const pool = createBrowserPool({ executablePath: TEST_CHROMIUM, concurrency: 2, proxy, ...options });
  await pool.ready;
  return {
    net,
    proxy,
    pool,
    async close() {
      await pool.close();
      await net.close();
    },
  };
}
