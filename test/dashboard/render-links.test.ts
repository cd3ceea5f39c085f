//! Render links on the dashboard: a link secret created on the page (shown once), a link built on
//! the page that answers the image, the cache's hits shown per day (in the usage section too) and emptied, and the secret
//! retired on the page, after which its link is refused with 401.
import test from 'ava';
import { PNG } from 'pngjs';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiUrl, newAccount } from '../helpers/api.js';
import { browserForFile } from './browser-for-file.js';
import { button, goTo, openDashboard, screenshot, signIn, textOf, waitForIdle, waitForText } from './page.js';

const browser = browserForFile();

/** The link as the test reaches it: PUBLIC_BASE_URL names the service, API_URL is where it listens. */
const reachable = (link: string) => {
  const url = new URL(link);
  return `${apiUrl()}${url.pathname}${url.search}`;
};

test('create a link secret, build a link that answers the image, see its cache hit, empty the cache, retire the secret', async (t) => {
  const account = await newAccount(10, 'Links & Co');
  const { page, problems, close } = await openDashboard(browser(), { path: '/dashboard/render-links' });
  try {
    await signIn(page, account.ownerToken);
    await waitForText(page, '#link-secrets-body', /No link secrets yet/);

    await page.click('#link-secret-form button[type=submit]');
    await page.waitForSelector('#link-secret .secret-value');
    const secret = await page.$eval('#link-secret .secret-value', (el) => (el as HTMLInputElement).value);
    t.regex(secret, /^lksec_/);
    await waitForText(page, '#link-secrets-body', /lks_[0-9A-Za-z]{22}[\s\S]*Live/);

    await page.select('#link-tool', 'qr-generate');
    await page.$eval('#link-input', (el) => {
      (el as HTMLTextAreaElement).value = '{"text": "built on the dashboard", "size": 128}';
    });
    await page.select('#link-expires', '3600');
    await page.click('#link-form button[type=submit]');
    await page.waitForSelector('#link-result .secret-value');
    const link = await page.$eval('#link-result .secret-value', (el) => (el as HTMLInputElement).value);
    t.regex(
      link,
      /\/api\/v1\/render\/lks_[0-9A-Za-z]{22}\/qr-generate\?text=built%20on%20the%20dashboard&size=128&expires=\d+&signature=[0-9a-f]{64}$/,
    );
    await screenshot(page, 'render-link-built');

    for (const cache of ['MISS', 'HIT']) {
      const res = await fetch(reachable(link));
      t.is(res.status, 200);
      t.is(res.headers.get('x-cache'), cache);
      const png = PNG.sync.read(Buffer.from(await res.arrayBuffer()));
      t.deepEqual([png.width, png.height], [128, 128]);
    }

    // A bad input is answered beside the form.
    await page.$eval('#link-input', (el) => {
      (el as HTMLTextAreaElement).value = '{"size": 128}';
    });
    await page.click('#link-form button[type=submit]');
    await waitForText(page, '#link-input-error', /text is required/);

    // The hit shows on the next load, here and in the usage view; emptying the cache makes the link render afresh.
    // Hits reach the owner's days within a second: refresh until the day shows (bounded against a hang).
    const dayRow = /\d{4}-\d{2}-\d{2}\s+1\s+1/;
    const refreshUntil = async (selector: string) => {
      for (let i = 0; i < 30 && !dayRow.test(await textOf(page, selector)); i++) {
        await sleep(500);
        await page.click('#refresh');
        await waitForIdle(page);
      }
    };
    await refreshUntil('#render-cache-body');
    t.regex(await textOf(page, '#render-cache-body'), dayRow);
    await goTo(page, 'usage');
    await refreshUntil('#cache-days');
    t.regex(await textOf(page, '#cache-days'), dayRow);
    await goTo(page, 'render-links');
    await (await button(page, '#render-cache-body', 'Empty the render cache')).click();
    await page.waitForSelector('#confirm-dialog[open]');
    await page.click('#confirm-ok');
    await sleep(200);
    let fresh = '';
    for (let i = 0; i < 50 && fresh !== 'MISS'; i++) {
      fresh = (await fetch(reachable(link), { method: 'HEAD' })).headers.get('x-cache') ?? '';
      if (fresh !== 'MISS') await sleep(100);
    }
    t.is(fresh, 'MISS');

    await (await button(page, '#link-secrets-body', 'Retire')).click();
    await page.waitForSelector('#confirm-dialog[open]');
    await page.click('#confirm-ok');
    await waitForText(page, '#link-secrets-body', /Retired/);
    await sleep(1_000);
    t.is((await fetch(reachable(link))).status, 401);
    t.regex(await textOf(page, '#render-links'), /Render links/);
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});
