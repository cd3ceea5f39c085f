//! The browser pool on a real Chromium: spare pages kept warm, a browser replaced after its
//! quota of captures without failing what it still runs, and a capture whose browser dies run
//! again on a new one.
import test from 'ava';
import { startTestBrowser, type TestBrowser } from '../../helpers/browser.js';
import { startBrowserPages } from '../../fixtures/browser-pages.js';
import type { PageServer } from '../../fixtures/http-pages.js';

let pages: PageServer;

test.before(async () => {
  pages = await startBrowserPages();
});

test.after.always(async () => {
  await pages?.close();
});

async function withBrowser(options: Parameters<typeof startTestBrowser>[0], run: (browser: TestBrowser) => Promise<void>) {
  const browser = await startTestBrowser(options);
  try {
    await run(browser);
  } finally {
    await browser.close();
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function eventually(condition: () => boolean, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (!condition() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return condition();
}

test.serial('spare pages are kept warm; after N captures the browser is replaced while its last captures finish', async (t) => {
  await withBrowser({ concurrency: 2, recycleAfter: 2 }, async ({ pool }) => {
    t.true(await eventually(() => pool.stats().sparePages === 3), 'a spare page per slot and one more once started');
    const signal = AbortSignal.timeout(60_000);
    const runs = await Promise.all(
      Array.from({ length: 6 }, () =>
        pool.withPage(async ({ page, session }) => {
          session.setPolicy({ blockAds: true });
          await page.goto(pages.url('/browser/title'));
          await new Promise((r) => setTimeout(r, 200)); // still working while the browser retires
          return { title: await page.title(), pid: page.browser().process()!.pid! };
        }, signal),
      ),
    );
    t.true(
      runs.every((r) => r.title === 'Browser fixture title'),
      'every capture finished',
    );
    const pids = [...new Set(runs.map((r) => r.pid))];
    t.true(pids.length >= 3, `${pids.length} browsers for 6 captures at 2 each`);
    t.true(pool.stats().launches >= 3);
    t.is(pool.stats().crashes, 0);
    t.true(await eventually(() => pids.slice(0, -1).every((pid) => !alive(pid))), 'retired browsers are closed');
  });
});

test.serial('a capture whose browser dies runs again on a new browser, and the pool serves on', async (t) => {
  await withBrowser({ concurrency: 1 }, async ({ pool }) => {
    let attempts = 0;
    const title = await pool.withPage(async ({ page, session }) => {
      attempts++;
      session.setPolicy({ blockAds: true });
      if (attempts === 1) page.browser().process()!.kill('SIGKILL');
      await page.goto(pages.url('/browser/title'));
      return page.title();
    }, AbortSignal.timeout(60_000));
    t.is(title, 'Browser fixture title');
    t.is(attempts, 2);
    t.like(pool.stats(), { crashes: 1, retries: 1, launches: 2 });
    const next = await pool.withPage(async ({ page, session }) => {
      session.setPolicy({ blockAds: true });
      await page.goto(pages.url('/browser/title'));
      return page.title();
    }, AbortSignal.timeout(30_000));
    t.is(next, 'Browser fixture title');
    t.is(pool.stats().openPages, 0);
  });
});

test.serial('an abandoned capture closes its page at once; one abandoned while queued never starts', async (t) => {
  await withBrowser({ concurrency: 1 }, async ({ pool }) => {
    const started: string[] = [];
    const busy = new AbortController();
    const first = pool.withPage(async ({ page, session }) => {
      started.push('first');
      session.setPolicy({ blockAds: true });
      await page.goto(pages.url('/hang'));
    }, busy.signal);
    const queued = new AbortController();
    const second = pool.withPage(async () => void started.push('second'), queued.signal);
    await eventually(() => started.length === 1);
    queued.abort(new Error('gone'));
    busy.abort(new Error('deadline'));
    await t.throwsAsync(first, { message: 'deadline' });
    await t.throwsAsync(second, { message: 'gone' });
    await new Promise((r) => setTimeout(r, 300));
    t.deepEqual(started, ['first']);
    t.true(await eventually(() => pool.stats().openPages === 0));
  });
});
