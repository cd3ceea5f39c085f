//! What a page reports about itself through the activity script, on a real Chromium: the timers
//! it counts (a timeout until it fires or is cleared, an interval until its first tick, nothing
//! beyond the horizon), pictures on their way (not a lazy one far below the fold), and that the
//! page's own timers still work as before (arguments, `this`, string handlers, clearing) and
//! still read as native code.
import test from 'ava';
import type { Page } from 'puppeteer-core';
import { callActivity, watchRequests, type PageState } from '../../../activities/browser/page-activity.js';
import { useBrowserAndPages } from '../../helpers/browser-fixture.js';
import { eventually } from '../../helpers/webhook-receiver.js';

const fixture = useBrowserAndPages();

/** Runs `check` on a pool page showing `html` (written into the page, as html-to-image does). */
function onPage<T>(html: string, check: (page: Page) => Promise<T>): Promise<T> {
  return fixture.browser.pool.withPage(async ({ page, session }) => {
    session.setPolicy({ blockAds: false });
    await page.setContent(html, { waitUntil: 'load' });
    return check(page);
  }, AbortSignal.timeout(60_000));
}

const probe = (page: Page, horizonMs = 500) => page.evaluate(callActivity('probe', horizonMs)) as Promise<PageState>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a timeout counts until it fires, a cleared one not at all, one beyond the horizon not yet', async (t) => {
  // Timers long enough that a slow probe still finds them pending: what is judged is the horizon, not the pace.
  await onPage('<script>window.later = setTimeout(() => {}, 30000); clearTimeout(setTimeout(() => {}, 100));</script>', async (page) => {
    t.is((await probe(page)).timerInMs, -1, 'the cleared one and the far one do not count');
    t.true((await probe(page, 60_000)).timerInMs > 500, 'the far one counts within a longer horizon');
    await page.evaluate('window.soon = setTimeout(() => { window.fired = true }, 3000)');
    const soon = await probe(page, 10_000);
    t.true(soon.timerInMs >= 0 && soon.timerInMs <= 3000, `due in ${soon.timerInMs} ms`);
    await page.waitForFunction('window.fired === true', { timeout: 10_000 });
    t.is((await probe(page)).timerInMs, -1, 'fired');
  });
});

test('an interval counts until its first tick only; an idle callback until it runs', async (t) => {
  await onPage('<script>window.ticks = 0; setInterval(() => window.ticks++, 150);</script>', async (page) => {
    await page.waitForFunction('window.ticks >= 1', { timeout: 10_000 });
    t.is((await probe(page)).timerInMs, -1, 'ticking on is not work under way');
    await page.evaluate('window.idle = false; requestIdleCallback(() => { window.idle = true })');
    await page.waitForFunction('window.idle === true', { timeout: 10_000 });
    t.is((await probe(page)).timerInMs, -1);
  });
});

test("the page's timers behave as without the script and read as native code", async (t) => {
  const html = `<script>
  window.seen = [];
  setTimeout(function (a, b) { seen.push(['args', a, b, this === window]) }, 0, 1, 'two');
  setTimeout("seen.push(['string'])", 0);
  const id = setInterval(() => { seen.push(['interval']); if (seen.filter((s) => s[0] === 'interval').length === 2) clearInterval(id) }, 20);
  const gone = setTimeout(() => seen.push(['cleared ran']), 10); clearTimeout(gone);
  window.natives = [setTimeout, setInterval, clearTimeout, requestIdleCallback].map((f) => Function.prototype.toString.call(f));
</script>`;
  await onPage(html, async (page) => {
    await page.waitForFunction('window.seen.filter((s) => s[0] === "interval").length === 2', { timeout: 10_000 });
    await sleep(100); // a third tick, or the cleared timeout, would have shown by now
    t.deepEqual(await page.evaluate('window.seen'), [['args', 1, 'two', true], ['string'], ['interval'], ['interval']]);
    for (const text of (await page.evaluate('window.natives')) as string[]) t.regex(text, /\[native code\]/);
    t.is(await page.evaluate('Object.keys(window).filter((k) => k.includes("Activity")).length'), 0, 'nothing enumerable on window');
  });
});

test('a picture requested and not complete is reported, and the request is in flight meanwhile', async (t) => {
  await onPage('<p>x</p>', async (page) => {
    const requests = watchRequests(page);
    // The picture takes 8 s, so it is still on its way whenever the probe runs.
    await page.evaluate(
      `const img = new Image(); img.src = ${JSON.stringify(fixture.pages.url('/browser/image.png?delay=8000'))}; document.body.appendChild(img)`,
    );
    await eventually(
      async () => requests.inFlight,
      (n) => n > 0,
      6_000,
      'the picture requested',
    );
    t.is((await probe(page)).images, 1);
    t.is(requests.inFlight, 1);
    await page.waitForFunction('document.images[0].complete', { timeout: 30_000 });
    t.like(await probe(page), { images: 0, fonts: 0, loaded: true });
    t.is(requests.inFlight, 0);
    t.is(requests.started, 1);
    requests.stop();
  });
});

test('a lazy picture far below the fold is not on its way, and not waited for', async (t) => {
  const src = fixture.pages.url('/browser/image.png?lazy=far');
  await onPage(`<div style="height: 8000px"></div><img loading="lazy" src="${src}" width="100" height="100">`, async (page) => {
    await page.evaluate(callActivity('frame'));
    t.is((await probe(page)).images, 0);
    t.false(
      fixture.pages.requests.some((r) => r.path.includes('lazy=far')),
      'never requested',
    );
  });
});
