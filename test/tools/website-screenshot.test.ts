//! website-screenshot: real Chromium on fixture pages. Image sizes are viewport x scale (full
//! pages as tall as the document, cut at 16384 px), lazy images load before a full-page capture,
//! JPEG quality shows in the size, overlays go (pixels under the banner), ad hosts and private
//! targets are dropped and counted, redirects land on the final URL, a private address (directly,
//! by DNS or by redirect) is refused, a load failing with a network error other than
//! ERR_NETWORK_CHANGED is not made again, pages that hang end at the deadline with their page closed;
//! then the same through HTTP against the running stack.
import test from 'ava';
import type { Page } from 'puppeteer-core';
import type { BrowserPool } from '../../activities/browser/browser-pool.js';
import type { SettleLimits } from '../../activities/browser/settle.js';
import { createWebsiteScreenshot } from '../../activities/browser/website-screenshot.js';
import type { WebsiteScreenshotInput, WebsiteScreenshotOutput } from '../../domain/tools/website-screenshot.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { startTestBrowser, trustCertificateFlag, type TestBrowser } from '../helpers/browser.js';
import { decodeImage, near } from '../helpers/images.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';
import { AD_HOST, COLOURS, lazyImagePositions, PRIVATE_REFERENCES, startBrowserPages, systemFontFile } from '../fixtures/browser-pages.js';
import { temporaryCa } from '../fixtures/tls-certs.js';
import { closedPort, type PageServer } from '../fixtures/http-pages.js';

const schemas = compileToolSchemas('website-screenshot');
const ctx = standaloneContext();

let browser: TestBrowser;
let pages: PageServer;
let securePages: PageServer;
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
function tool(options: { settle?: Partial<SettleLimits>; pool?: Pick<BrowserPool, 'withPage'> } = {}) {
  return createWebsiteScreenshot({ pool: options.pool ?? browser.pool, guard: browser.net.guard, settle: options.settle });
}

async function shoot(t: Parameters<typeof validInput>[0], fields: Partial<WebsiteScreenshotInput>): Promise<WebsiteScreenshotOutput> {
  const out = await tool()(validInput<WebsiteScreenshotInput>(t, schemas.input, fields), ctx);
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  return out;
}

/** A pool that remembers the page it handed out, and aborts `deadline` `ms` after opening it. */
function watchedPool(ms: number): { pool: Pick<BrowserPool, 'withPage'>; deadline: AbortSignal; page(): Page | undefined } {
  let seen: Page | undefined;
  const deadline = new AbortController();
  return {
    pool: {
      withPage: (task, signal) =>
        browser.pool.withPage((lease) => {
          seen = lease.page;
          setTimeout(() => deadline.abort(new Error('deadline')), ms);
          return task(lease);
        }, signal),
    },
    deadline: deadline.signal,
    page: () => seen,
  };
}

// ===== Unit: the handler on a real Chromium against fixture pages (no stack) =====

test('the visible area at the default viewport: a 1440x900 PNG with the title and final URL', async (t) => {
  const out = await shoot(t, { url: pages.url('/browser/title') });
  t.is(out.mimeType, 'image/png');
  t.like(out, {
    width: 1440,
    height: 900,
    pageTitle: 'Browser fixture title',
    finalUrl: pages.url('/browser/title'),
    truncated: false,
    blockedRequestCount: 0,
  });
  const image = await decodeImage(out.fileBase64, out.mimeType);
  t.deepEqual([image.width, image.height], [1440, 900]);
  t.deepEqual(image.rgb(1000, 600), [...COLOURS.background]);
});

test('breakpoints follow the viewport width, and deviceScaleFactor 2 doubles the pixels', async (t) => {
  const narrow = await shoot(t, { url: pages.url('/browser/breakpoints'), width: 375, height: 667, deviceScaleFactor: 2 });
  t.like(narrow, { width: 750, height: 1334 });
  const narrowImage = await decodeImage(narrow.fileBase64, narrow.mimeType);
  t.deepEqual([narrowImage.width, narrowImage.height], [750, 1334]);
  t.deepEqual(narrowImage.rgb(700, 1300), [...COLOURS.narrow]);

  const wide = await shoot(t, { url: pages.url('/browser/breakpoints'), width: 1024, height: 300 });
  t.like(wide, { width: 1024, height: 300 });
  t.deepEqual((await decodeImage(wide.fileBase64, wide.mimeType)).rgb(1000, 290), [...COLOURS.wide]);
});

test('fullPage scrolls through first: the lazy images are loaded and the image is as tall as the page', async (t) => {
  const height = 6000;
  const out = await shoot(t, { url: pages.url(`/browser/tall?height=${height}`), fullPage: true });
  t.like(out, { width: 1440, height, truncated: false });
  const image = await decodeImage(out.fileBase64, out.mimeType);
  t.is(image.height, height);
  for (const spot of lazyImagePositions(height)) {
    t.deepEqual(image.rgb(spot.x + spot.size / 2, spot.y + spot.size / 2), [...COLOURS.lazy], `${spot.kind} image loaded`);
  }
  t.true(
    pages.requests.some((r) => r.path.includes('kind=observer')),
    'the observer image was requested only because the page was scrolled',
  );
});

test('a page taller than the ceiling is cut at 16384 image pixels and says truncated; at scale 2 the ceiling is 8192 CSS px', async (t) => {
  const tall = await shoot(t, { url: pages.url('/browser/tall?height=20000'), fullPage: true, width: 800 });
  t.like(tall, { width: 800, height: 16_384, truncated: true });
  t.is((await decodeImage(tall.fileBase64, tall.mimeType)).height, 16_384);

  const dense = await shoot(t, {
    url: pages.url('/browser/tall?height=9000'),
    fullPage: true,
    width: 400,
    deviceScaleFactor: 2,
    format: 'jpeg',
  });
  t.like(dense, { width: 800, height: 16_384, truncated: true });

  const fits = await shoot(t, {
    url: pages.url('/browser/tall?height=8000'),
    fullPage: true,
    width: 400,
    deviceScaleFactor: 2,
    format: 'jpeg',
  });
  t.like(fits, { width: 800, height: 16_000, truncated: false });
});

test('jpeg: the image decodes at viewport size and a lower quality gives a smaller file', async (t) => {
  const low = await shoot(t, { url: pages.url('/browser/colourful'), format: 'jpeg', quality: 40, width: 800, height: 600 });
  const high = await shoot(t, { url: pages.url('/browser/colourful'), format: 'jpeg', quality: 95, width: 800, height: 600 });
  for (const out of [low, high]) {
    t.is(out.mimeType, 'image/jpeg');
    const image = await decodeImage(out.fileBase64, out.mimeType);
    t.deepEqual([image.width, image.height], [800, 600]);
  }
  t.true(low.fileBase64.length < high.fileBase64.length * 0.7, `q40 ${low.fileBase64.length} vs q95 ${high.fileBase64.length}`);
});

test('hideOverlays removes the cookie banner, the newsletter modal and the large sticky panel, and keeps the small header', async (t) => {
  const url = pages.url('/browser/overlays');
  const spots = { banner: [200, 850], panel: [1300, 400], modal: [550, 350], open: [200, 400], header: [700, 30] } as const;
  const before = await shoot(t, { url });
  const covered = await decodeImage(before.fileBase64, before.mimeType);
  const clean = await shoot(t, { url, hideOverlays: true });
  const image = await decodeImage(clean.fileBase64, clean.mimeType);
  for (const name of ['banner', 'panel', 'modal', 'open'] as const) {
    const [x, y] = spots[name];
    t.notDeepEqual(covered.rgb(x, y), [...COLOURS.background], `${name} covered before`);
    t.deepEqual(image.rgb(x, y), [...COLOURS.background], `nothing over the page at the ${name}`);
  }
  t.deepEqual(image.rgb(...spots.header), [...COLOURS.header], 'the small fixed header stays');
});

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

test('web fonts are waited for: text in a late font is drawn', async (t) => {
  if (!systemFontFile()) return t.pass('no TrueType font installed to serve');
  const out = await shoot(t, { url: pages.url('/browser/font'), width: 800, height: 300 });
  const image = await decodeImage(out.fileBase64, out.mimeType);
  let dark = 0;
  for (let x = 20; x < 400; x += 2) for (let y = 20; y < 140; y += 2) if (image.rgb(x, y)[0] < 80) dark++;
  t.true(dark > 200, `${dark} dark pixels of text`);
});

// Serial (ava runs these first, alone): their timing must not include waiting for a free page.
test.serial('a resource that never arrives delays the capture by the settling limits only', async (t) => {
  // Judged against a capture of a page with nothing pending, taken alongside on the same pool:
  // the difference is waiting, which a busy machine barely stretches, not work, which it does.
  const limits = { loadMs: 1_000, idleMs: 1_000 };
  const timed = async (path: string) => {
    const started = Date.now();
    const out = await tool({ settle: limits })(validInput<WebsiteScreenshotInput>(t, schemas.input, { url: pages.url(path) }), ctx);
    return { out, ms: Date.now() - started };
  };
  const quick = await timed('/browser/title');
  const slow = await timed('/browser/slow-image');
  t.is(slow.out.pageTitle, 'Slow image');
  // The service's own limits (15 s for the load event, then 5 s) would add 20 s at the least.
  t.true(slow.ms - quick.ms < 10_000, `${slow.ms} ms against ${quick.ms} ms without a pending resource`);
});

test.serial('a page that never answers ends at the deadline, and its page is closed', async (t) => {
  const watched = watchedPool(1_500);
  const input = validInput<WebsiteScreenshotInput>(t, schemas.input, { url: pages.url('/hang') });
  // The deadline's own error: the capture's limits (15 s for the load event) would end it with theirs.
  await t.throwsAsync(tool({ pool: watched.pool })(input, standaloneContext('hang', watched.deadline)), { message: 'deadline' });
  t.true(await eventually(async () => watched.page()!.isClosed(), Boolean, 60_000, 'the page closed'));
});

test('schemas: defaults, bounds of width, height, quality and scale, http(s) only', (t) => {
  const input = validInput<WebsiteScreenshotInput>(t, schemas.input, { url: 'https://example.com/' });
  t.deepEqual(input, {
    url: 'https://example.com/',
    width: 1440,
    height: 900,
    fullPage: false,
    deviceScaleFactor: 1,
    format: 'png',
    quality: 85,
    blockAds: true,
    hideOverlays: false,
  });
  for (const bad of [
    { width: 319 },
    { width: 3841 },
    { height: 199 },
    { height: 4321 },
    { quality: 39 },
    { quality: 101 },
    { deviceScaleFactor: 3 },
    { format: 'webp' },
    { url: 'ftp://x/' },
    { url: 'javascript:alert(1)' },
    { extra: 1 },
  ]) {
    t.false(schemas.input({ url: 'https://example.com/', ...bad }), JSON.stringify(bad));
  }
  const { examples } = schemas.input.schema as { examples: unknown[] };
  t.true(schemas.input(structuredClone(examples[0])));
});

// ===== Integration: through HTTP against the running stack =====

test('HTTP: 200 with every spec field, 25 credits charged, blocked requests counted', async (t) => {
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, 'website-screenshot', { url: pages.url('/browser/resources') });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.true(schemas.output(res.body), JSON.stringify(schemas.output.errors));
  t.like(res.body, {
    mimeType: 'image/png',
    width: 1440,
    height: 900,
    pageTitle: 'Resources',
    finalUrl: pages.url('/browser/resources'),
    truncated: false,
    blockedRequestCount: 1 + PRIVATE_REFERENCES.length,
  });
  t.is(res.headers.get('x-credits-charged'), '25');
  t.is(await balanceOf(account), 75);
});

test('HTTP: a big full-page capture comes back whole through the claim check', async (t) => {
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, 'website-screenshot', {
    url: pages.url('/browser/colourful'),
    fullPage: true,
    deviceScaleFactor: 2,
    width: 1200,
  });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.true(res.body.fileBase64.length > 128 * 1024, `${res.body.fileBase64.length} base64 characters`);
  const image = await decodeImage(res.body.fileBase64, res.body.mimeType);
  t.deepEqual([image.width, image.height], [res.body.width, res.body.height]);
  t.is(image.width, 2400);
});

test('HTTP: a capture that outlasts a workflow task (a resource that never arrives: the load and settling bounds, ~20 s) answers 200, charged once', async (t) => {
  // The capture runs inside its call's workflow task, whose timeout is 10 s: the worker keeps the
  // task alive while it runs, so the call is neither timed out nor run again.
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, 'website-screenshot', { url: pages.url('/browser/slow-image') });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.like(res.body, { pageTitle: 'Slow image', width: 1440, height: 900 });
  t.is(await balanceOf(account), 75);
});

test("HTTP: a page that never answers is 504 tool_timeout at the tool's deadline, and not charged", async (t) => {
  // The fixture never answers at all, so only the call's deadline (the tool's 60 s) can end it.
  t.timeout(4 * 60_000);
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, 'website-screenshot', { url: pages.url('/hang') });
  t.true(isProblem(res, 504, 'tool_timeout'), JSON.stringify(res.body));
  t.is(await balanceOf(account), 100);
});

test('HTTP: a private target is 422 target_not_allowed and not charged; a bad field is 400', async (t) => {
  const account = await newAccount(100);
  for (const url of ['http://10.0.0.1/', 'http://private10.test/', pages.url('/redirect?to=http%3A%2F%2F10.0.0.1%2F')]) {
    const res = await callTool(account.apiKey, 'website-screenshot', { url });
    t.true(isProblem(res, 422, 'target_not_allowed'), `${url}: ${JSON.stringify(res.body)}`);
    t.is(res.body.reason, 'private');
  }
  const bad = await callTool(account.apiKey, 'website-screenshot', { url: 'file:///etc/passwd', width: 100 });
  t.true(isProblem(bad, 400, 'validation_failed'));
  t.deepEqual(bad.body.errors.map((e: { field: string }) => e.field).sort(), ['/url', '/width']);
  t.is(await balanceOf(account), 100);
});
