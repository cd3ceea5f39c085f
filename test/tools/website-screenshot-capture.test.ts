//! website-screenshot's capture on a real Chromium against fixture pages (no stack): image sizes
//! are viewport x scale (full pages as tall as the document, cut at 16384 px), lazy images load
//! before a full-page capture, JPEG quality shows in the size, overlays go (pixels under the
//! banner), late fonts are drawn, a pending resource waits only the settling limits and a page that
//! hangs ends at the deadline with its page closed; the input's schema.
import test from 'ava';
import type { Page } from 'puppeteer-core';
import type { BrowserPool } from '../../activities/browser/browser-pool.js';
import type { WebsiteScreenshotInput } from '../../domain/tools/website-screenshot.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { decodeImage } from '../helpers/images.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { validInput } from '../helpers/tools.js';
import { COLOURS, lazyImagePositions, systemFontFile } from '../fixtures/browser-pages.js';
import { browser, ctx, pages, schemas, shoot, tool } from './support/website-screenshot-bed.js';

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
