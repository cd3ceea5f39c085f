//! Monitors on the dashboard: each monitor with its state, uptime and a latency line of its last
//! runs; Runs shows a monitor's runs with their checks and, for a visual change, its diff image
//! (served on the page's own origin under its CSP); Pause and Resume change the monitor and its
//! schedule. The runs are real: asked for now (POST .../run) of a monitor that runs hourly, so no
//! schedule races the page.
import test from 'ava';
import { newAccount, request } from '../helpers/api.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { htmlDocument, send, startPageServer, type PageServer } from '../fixtures/http-pages.js';
import { createMonitor, readMonitor, runsOf } from '../monitors/support.js';
import { browserForFile } from './browser-for-file.js';
import { button, openDashboard, screenshot, signIn, textOf, waitForText } from './page.js';

const browser = browserForFile();
let pages: PageServer;
let square = false;
test.before(async () => {
  const body = () => (square ? '<div style="position:absolute;left:100px;top:50px;width:80px;height:80px;background:#000"></div>' : '');
  pages = await startPageServer({
    routes: {
      '/shown': (_req, res) =>
        send(res, 200, 'text/html; charset=utf-8', htmlDocument('<style>body{margin:0;background:#fff}</style>', body())),
    },
  });
});
test.after.always(async () => {
  await pages?.close();
});

test('monitors show their state, uptime and latency; Runs shows checks and a diff image; Pause and Resume follow', async (t) => {
  t.timeout(3 * 60_000);
  const account = await newAccount(500, 'Monitored & Co');
  const runNow = async (id: string, count: number) => {
    await request('POST', `/api/v1/account/monitors/${id}/run`, { token: account.ownerToken });
    await eventually(
      () => runsOf(account, id),
      (r) => r.length === count,
      60_000,
      `run ${count} of ${id} judged`,
    );
  };
  const hash = await createMonitor(account, {
    name: 'Hash check',
    tool: 'hash-text',
    input: { text: 'dashboard' },
    schedule: { every: '1h' },
    assertions: [{ path: '/algorithm', op: 'eq', value: 'sha256' }],
    alert: { notify: [] },
  });
  const visual = await createMonitor(account, {
    name: 'Front page look',
    tool: 'website-screenshot',
    input: { url: pages.url('/shown'), width: 320, height: 200 },
    schedule: { every: '1h' },
    assertions: [{ op: 'visual_change', threshold: 0.01 }],
    alert: { notify: [] },
  });
  for (const n of [1, 2, 3]) await runNow(hash.id, n);
  await runNow(visual.id, 1);
  square = true;
  await runNow(visual.id, 2);
  const [changed] = await runsOf(account, visual.id);
  t.truthy(changed.change?.diffUrl, 'the second capture changed');

  const { page, problems, close } = await openDashboard(browser(), { path: '/dashboard/monitors' });
  try {
    await signIn(page, account.ownerToken);
    const hashRow = `tr[data-monitor-id="${hash.id}"]`;
    const visualRow = `tr[data-monitor-id="${visual.id}"]`;
    t.regex(await waitForText(page, hashRow, /Up/), /Hash check[\s\S]*hash-text[\s\S]*Up[\s\S]*100% \/ 100% \/ 100%/);
    const line = await page.$eval(`${hashRow} svg.latency-line`, (svg) => svg.getAttribute('aria-label'));
    t.regex(line ?? '', /^Latency of the last 3 runs: /);
    t.is(await page.$$eval(`${hashRow} svg.latency-line polyline`, (p) => p.length), 1);
    await screenshot(page, 'monitors');

    await (await button(page, visualRow, 'Runs')).click();
    await waitForText(page, '#monitor-runs-title', /Runs of Front page look/);
    await waitForText(page, '.monitor-runs-table', /Changed: \/fileBase64/);
    const image = await page.waitForFunction(
      () => {
        const img = document.querySelector('.monitor-runs-table img.diff-image') as HTMLImageElement | null;
        return img?.complete && img.naturalWidth > 0 ? [img.naturalWidth, img.naturalHeight] : false;
      },
      { timeout: 20_000 },
    );
    t.deepEqual(await image.jsonValue(), [320, 200], 'the diff image is shown, loaded from the page’s own origin');
    t.regex(await textOf(page, '.monitor-runs-table'), /visual_change 0\.01: (passed|failed)/);
    await screenshot(page, 'monitor-runs');

    await (await button(page, hashRow, 'Pause')).click();
    await waitForText(page, hashRow, /Paused[\s\S]*Resume/);
    t.is((await readMonitor(account, hash.id)).state, 'paused');
    await (await button(page, hashRow, 'Resume')).click();
    await waitForText(page, hashRow, /Pending[\s\S]*Pause/);
    t.is((await readMonitor(account, hash.id)).state, 'pending');
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});
