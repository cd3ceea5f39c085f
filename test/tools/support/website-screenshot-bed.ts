//! website-screenshot's handler on a real Chromium against fixture pages, no stack
//! (test/tools/website-screenshot-*.test.ts): the test browser trusting a temporary CA, the fixture
//! pages over HTTP and HTTPS, and the handler with its waits and its pool open to the test.
import test from 'ava';
import type { BrowserPool } from '../../../activities/browser/browser-pool.js';
import type { SettleLimits } from '../../../activities/browser/settle.js';
import { createWebsiteScreenshot } from '../../../activities/tools/website-screenshot.js';
import type { WebsiteScreenshotInput, WebsiteScreenshotOutput } from '../../../domain/tools/website-screenshot.js';
import { standaloneContext } from '../../../domain/tools/index.js';
import { startTestBrowser, trustCertificateFlag, type TestBrowser } from '../../helpers/browser.js';
import { compileToolSchemas, validInput } from '../../helpers/tools.js';
import { AD_HOST, startBrowserPages } from '../../fixtures/browser-pages.js';
import { temporaryCa } from '../../fixtures/tls-certs.js';
import type { PageServer } from '../../fixtures/http-pages.js';

export const schemas = compileToolSchemas('website-screenshot');
export const ctx = standaloneContext();

export let browser: TestBrowser;
export let pages: PageServer;
export let securePages: PageServer;
let testCa: Awaited<ReturnType<typeof temporaryCa>> | undefined;

test.before(async () => {
  testCa = await temporaryCa(['fixture.test', '127.0.0.2']);
  const { leaf } = testCa;
  browser = await startTestBrowser({ extraArgs: [trustCertificateFlag(leaf.cert)] });
  // The ad host answers from the fixture address, so with blockAds off its image does load.
  browser.net.dns.setRecords(AD_HOST, [{ type: 'A', data: '127.0.0.2' }]);
  pages = await startBrowserPages();
  securePages = await startBrowserPages({ tls: { cert: leaf.cert, key: leaf.key } });
});

test.after.always(async () => {
  await Promise.all([pages?.close(), securePages?.close()]);
  await browser?.close();
  await testCa?.close();
});

/** The handler on the test pool; `settle` shortens its waits, `pool` wraps the pool. */
export function tool(options: { settle?: Partial<SettleLimits>; pool?: Pick<BrowserPool, 'withPage'> } = {}) {
  return createWebsiteScreenshot({ pool: options.pool ?? browser.pool, guard: browser.net.guard, settle: options.settle });
}

export async function shoot(
  t: Parameters<typeof validInput>[0],
  fields: Partial<WebsiteScreenshotInput>,
): Promise<WebsiteScreenshotOutput> {
  const out = await tool()(validInput<WebsiteScreenshotInput>(t, schemas.input, fields), ctx);
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  return out;
}
