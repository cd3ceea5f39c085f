//! website-screenshot's network on a real Chromium against fixture pages (no stack): ad hosts and
//! private targets are dropped and counted, redirects land on the final URL, a private address
//! (directly, by DNS or by redirect) is refused, HTTPS goes by name through the proxy, a download or
//! an unreachable address is 502, and a load failing with a network error other than
//! ERR_NETWORK_CHANGED is not made again.
import test from 'ava';
import type { BrowserPool } from '../../activities/browser/browser-pool.js';
import type { WebsiteScreenshotInput } from '../../domain/tools/website-screenshot.js';
import { decodeImage, near } from '../helpers/images.js';
import { rejectsWith, validInput } from '../helpers/tools.js';
import { AD_HOST, COLOURS, PRIVATE_REFERENCES } from '../fixtures/browser-pages.js';
import { closedPort } from '../fixtures/http-pages.js';
import { browser, ctx, pages, schemas, securePages, shoot, tool } from './support/website-screenshot-bed.js';

test('blockAds drops the ad host; private targets are dropped whatever blockAds says; both are counted', async (t) => {
  const url = pages.url('/browser/resources');
  const adSpot = [50, 150] as const; // the second 100x100 image
  const blocked = await shoot(t, { url, blockAds: true });
  t.is(blocked.blockedRequestCount, 1 + PRIVATE_REFERENCES.length);
  t.false(near((await decodeImage(blocked.fileBase64, blocked.mimeType)).rgb(...adSpot), COLOURS.ad), 'no ad image');

  const allowed = await shoot(t, { url, blockAds: false });
  t.is(allowed.blockedRequestCount, PRIVATE_REFERENCES.length);
  t.deepEqual((await decodeImage(allowed.fileBase64, allowed.mimeType)).rgb(...adSpot), [...COLOURS.ad], 'the ad image loads');
  t.deepEqual((await decodeImage(allowed.fileBase64, allowed.mimeType)).rgb(50, 50), [...COLOURS.lazy], "the page's own image loads");
});

test("the page's own host is never dropped as an ad host", async (t) => {
  const out = await shoot(t, { url: `http://${AD_HOST}:${pages.port}/browser/title`, blockAds: true });
  t.like(out, { pageTitle: 'Browser fixture title', blockedRequestCount: 0 });
});

test('a redirect is followed: finalUrl and pageTitle are those of the page it lands on', async (t) => {
  const out = await shoot(t, { url: pages.url('/redirect?to=/browser/title&status=301') });
  t.like(out, { finalUrl: pages.url('/browser/title'), pageTitle: 'Browser fixture title' });
  const byName = await shoot(t, {
    url: `http://fixture.test:${pages.port}/redirect?to=${encodeURIComponent(pages.url('/browser/title'))}`,
  });
  t.is(byName.finalUrl, pages.url('/browser/title'));
});

test('a private address is refused before any page opens: directly, by DNS, metadata, unlisted loopback, other schemes', async (t) => {
  const noPage: Pick<BrowserPool, 'withPage'> = {
    withPage: async () => {
      throw new Error('a page was opened');
    },
  };
  const handler = tool({ pool: noPage });
  const cases = [
    ['http://10.0.0.1/', 'private'],
    ['http://private10.test/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://metadata.test/', 'metadata'],
    ['http://127.0.0.1:8080/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['file:///etc/passwd', 'scheme'],
  ] as const;
  for (const [url, reason] of cases) {
    const err = await rejectsWith(
      t,
      handler({ ...validInput<WebsiteScreenshotInput>(t, schemas.input, { url: 'http://x.test/' }), url }, ctx),
      'target_not_allowed',
    );
    t.is(err.extras.reason, reason, url);
  }
  await rejectsWith(
    t,
    handler(validInput<WebsiteScreenshotInput>(t, schemas.input, { url: 'http://nxdomain.test/' }), ctx),
    'upstream_error',
  );
});

test('a redirect to a private address or a local file is refused (422)', async (t) => {
  for (const [to, reason] of [
    ['http://10.0.0.1/', 'private'],
    ['http://private10.test:8080/', 'private'],
    ['http://127.0.0.1:8080/', 'loopback'],
    ['file:///etc/passwd', 'scheme'],
  ] as const) {
    const err = await rejectsWith(
      t,
      tool()(validInput<WebsiteScreenshotInput>(t, schemas.input, { url: pages.url(`/redirect?to=${encodeURIComponent(to)}`) }), ctx),
      'target_not_allowed',
    );
    t.is(err.extras.reason, reason, to);
    t.regex(err.message, /^Redirect refused/);
  }
});

test('HTTPS goes through the proxy tunnel to the pinned address, by name', async (t) => {
  const out = await shoot(t, { url: `https://fixture.test:${securePages.port}/browser/title` });
  t.like(out, { pageTitle: 'Browser fixture title', finalUrl: `https://fixture.test:${securePages.port}/browser/title` });
});

test('JavaScript dialogs do not stop the page; a page leaving for a local file stays where it is', async (t) => {
  t.is((await shoot(t, { url: pages.url('/browser/dialogs') })).pageTitle, 'Dialogs');
  const out = await shoot(t, { url: pages.url('/browser/file-navigation') });
  t.is(out.finalUrl, pages.url('/browser/file-navigation'));
});

test('an address that answers with a download, or cannot be reached, is 502', async (t) => {
  const download = await rejectsWith(
    t,
    tool()(validInput<WebsiteScreenshotInput>(t, schemas.input, { url: pages.url('/browser/download') }), ctx),
    'upstream_error',
  );
  t.is(download.extras.reason, 'not_a_page');
  const closed = await rejectsWith(
    t,
    tool()(validInput<WebsiteScreenshotInput>(t, schemas.input, { url: `http://127.0.0.2:${await closedPort()}/` }), ctx),
    'upstream_error',
  );
  t.is(closed.extras.reason, 'connection_refused');
});

test('a load Chromium fails with a network error other than ERR_NETWORK_CHANGED is not made again: 502 naming it', async (t) => {
  for (const [reason, code] of [
    ['internetdisconnected', 'ERR_INTERNET_DISCONNECTED'],
    ['connectionreset', 'ERR_CONNECTION_RESET'],
  ] as const) {
    let loads = 0;
    // Chromium itself fails the page's load: its request interception aborts it with that error.
    const pool: Pick<BrowserPool, 'withPage'> = {
      withPage: (task, signal) =>
        browser.pool.withPage(async (lease) => {
          await lease.page.setRequestInterception(true);
          lease.page.on('request', (request) => {
            if (request.isNavigationRequest() && request.frame() === lease.page.mainFrame()) loads++;
            void (request.isNavigationRequest() ? request.abort(reason) : request.continue());
          });
          return task(lease);
        }, signal),
    };
    const url = pages.url('/browser/title');
    const err = await rejectsWith(t, tool({ pool })(validInput<WebsiteScreenshotInput>(t, schemas.input, { url }), ctx), 'upstream_error');
    t.like(err.extras, { reason: 'network', netError: code });
    t.is(loads, 1, `${code}: one load`);
  }
});
