//! Settling on what the page does, through both tools on a real Chromium: a web font and an image
//! that arrive after the load event are in the capture (the same pixels as a capture taken after
//! a long wait, where one taken at the load event lacks them), lazy images below the fold load
//! for a full page, and pages that never go quiet (streams held open, endless polling) are
//! captured at the settling bound instead of failing at the call's deadline. Outcomes and pixels
//! only: how long a capture takes is the benchmark's business (bench:heavy).
import test from 'ava';
import type { Page } from 'puppeteer-core';
import { createHtmlToImage } from '../../../activities/tools/html-to-image.js';
import type { SettleLimits } from '../../../activities/browser/settle.js';
import { createWebsiteScreenshot } from '../../../activities/tools/website-screenshot.js';
import type { HtmlToImageInput } from '../../../domain/tools/html-to-image.js';
import type { WebsiteScreenshotInput } from '../../../domain/tools/website-screenshot.js';
import { standaloneContext } from '../../../domain/tools/index.js';
import { useBrowserAndPages } from '../../helpers/browser-fixture.js';
import { decodeImage, differingPixels, type DecodedImage } from '../../helpers/images.js';
import { COLOURS, LATE_FONT_MARKUP, LATE_IMAGE, LATE_IMAGE_MARKUP, systemFontFile } from '../../fixtures/browser-pages.js';

const fixture = useBrowserAndPages();

const SIZE = { width: 800, height: 400 };
const IMAGE = { ...SIZE, fullPage: false, deviceScaleFactor: 1, format: 'png', quality: 85 } as const;
/** Far beyond any settling bound: a capture that ends here waited for something that never ends. */
const DEADLINE_MS = 60_000;

function screenshot(url: string, fields: Partial<WebsiteScreenshotInput> = {}, settle?: Partial<SettleLimits>) {
  const input: WebsiteScreenshotInput = { url, ...IMAGE, blockAds: true, hideOverlays: false, ...fields };
  return createWebsiteScreenshot({ pool: fixture.browser.pool, guard: fixture.browser.net.guard, settle })(
    input,
    standaloneContext('settle', AbortSignal.timeout(DEADLINE_MS)),
  );
}

function htmlToImage(html: string, fields: Partial<HtmlToImageInput> = {}) {
  return createHtmlToImage({ pool: fixture.browser.pool })(
    { html, ...IMAGE, ...fields },
    standaloneContext('settle', AbortSignal.timeout(DEADLINE_MS)),
  );
}

const decoded = (out: { fileBase64: string; mimeType: string }) => decodeImage(out.fileBase64, out.mimeType);

/** A capture straight from the pool, no settling: once the page has loaded (`open`), when `ready` holds in it, after `pauseMs` more. */
async function rawCapture(open: (page: Page) => Promise<unknown>, ready = 'true', pauseMs = 0): Promise<DecodedImage> {
  const png = await fixture.browser.pool.withPage(async ({ page, session }) => {
    session.setPolicy({ blockAds: false });
    await page.setViewport({ ...SIZE, deviceScaleFactor: 1 });
    await open(page);
    await page.waitForFunction(ready, { timeout: 30_000, polling: 50 });
    await new Promise((r) => setTimeout(r, pauseMs));
    return Buffer.from(await page.screenshot({ type: 'png' })).toString('base64');
  }, AbortSignal.timeout(DEADLINE_MS));
  return decodeImage(png, 'image/png');
}

const FONT_DRAWN = 'document.fonts.size > 0 && document.fonts.status === "loaded"';
const IMAGE_DRAWN = 'document.images.length > 0 && document.images[0].complete';
const LONG_WAIT_MS = 1_500;

function darkPixels(image: DecodedImage): number {
  let dark = 0;
  for (let x = 0; x < image.width; x += 2) for (let y = 0; y < image.height; y += 2) if (image.rgb(x, y)[0] < 80) dark++;
  return dark;
}

test('a web font arriving 400 ms after the load event is in the capture, as after a long wait', async (t) => {
  if (!systemFontFile()) return t.pass('no TrueType font installed to serve');
  const url = fixture.pages.url('/browser/late-font');
  const later = await rawCapture((page) => page.goto(url, { waitUntil: 'load' }), FONT_DRAWN, LONG_WAIT_MS);
  // What a capture too early shows: the same page whose font takes a minute.
  const early = await rawCapture((page) => page.goto(fixture.pages.url('/browser/late-font?delay=60000'), { waitUntil: 'load' }));
  t.true(darkPixels(later) > 200, 'the text is drawn after a long wait');
  t.true(differingPixels(early, later) > 1000, 'until the font arrives the text is not drawn in it');

  t.is(differingPixels(await decoded(await screenshot(url)), later), 0, 'website-screenshot');
  const markup = LATE_FONT_MARKUP(fixture.pages.url('/browser/font.ttf?delay=400'));
  t.is(differingPixels(await decoded(await htmlToImage(markup)), later), 0, 'html-to-image');
});

test('an image inserted by script 200 ms after the load event is in the capture, as after a long wait', async (t) => {
  const url = fixture.pages.url('/browser/late-image');
  const later = await rawCapture((page) => page.goto(url, { waitUntil: 'load' }), IMAGE_DRAWN, LONG_WAIT_MS);
  const early = await rawCapture((page) => page.goto(fixture.pages.url('/browser/late-image?after=60000'), { waitUntil: 'load' }));
  const spot = [LATE_IMAGE.x + LATE_IMAGE.size / 2, LATE_IMAGE.y + LATE_IMAGE.size / 2] as const;
  t.deepEqual(later.rgb(...spot), [...COLOURS.late], 'the image is there after a long wait');
  t.deepEqual(early.rgb(...spot), [...COLOURS.background], 'not before it goes in');

  t.is(differingPixels(await decoded(await screenshot(url)), later), 0, 'website-screenshot');
  const markup = LATE_IMAGE_MARKUP(fixture.pages.url('/browser/image.png'));
  t.is(differingPixels(await decoded(await htmlToImage(markup)), later), 0, 'html-to-image');
});

test('html-to-image, full page: lazy images below the fold are loaded', async (t) => {
  const src = fixture.pages.url(
    `/browser/image.png?color=${COLOURS.late.map((c) => c.toString(16).padStart(2, '0')).join('')}&w=200&h=200`,
  );
  const html = `<body style="margin: 0"><div style="height: 5000px"></div><img loading="lazy" src="${src}" width="200" height="200" style="display: block"></body>`;
  const out = await htmlToImage(html, { fullPage: true });
  t.like(out, { width: 800, height: 5200 });
  t.deepEqual((await decoded(out)).rgb(100, 5100), [...COLOURS.late]);
});

test('streams held open (EventSource, WebSocket, a long-poll) are captured at the settling bound, not at the deadline', async (t) => {
  const out = await screenshot(fixture.pages.url('/browser/streams'), {}, { idleMs: 1_000 });
  t.deepEqual((await decoded(out)).rgb(100, 100), [...COLOURS.late]);
  for (const path of ['/browser/events', '/browser/socket', '/hang'])
    t.true(
      fixture.pages.requests.some((r) => r.path === path),
      `the page opened ${path}`,
    );
});

test('a page fetching every 100 ms forever is captured at the settling bound, not at the deadline', async (t) => {
  const before = fixture.pages.requests.filter((r) => r.path.startsWith('/browser/tick')).length;
  const out = await screenshot(fixture.pages.url('/browser/polling'), {}, { idleMs: 1_000 });
  t.deepEqual((await decoded(out)).rgb(100, 100), [...COLOURS.late]);
  t.true(fixture.pages.requests.filter((r) => r.path.startsWith('/browser/tick')).length - before > 1, 'it kept polling');
});
