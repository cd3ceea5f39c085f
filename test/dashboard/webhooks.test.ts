//! Webhook endpoints on the dashboard, against a receiver in this process: add one (its signing
//! secret, shown once, verifies the deliveries), Send test and see the attempt appear, see
//! failures counted, re-enable a disabled endpoint, page through attempts, delete.
import test from 'ava';
import { newAccount } from '../helpers/api.js';
import { disableByFailures, endpointOf, eventually } from '../helpers/webhook-receiver.js';
import { receiverForFile } from '../helpers/receiver-for-file.js';
import { verifyWebhook } from '../../lib/webhook-signature.js';
import { browserForFile } from './browser-for-file.js';
import { button, focused, openDashboard, refresh, screenshot, signIn, textOf, waitForText } from './page.js';

const browser = browserForFile();
const receiver = receiverForFile();

const card = '#webhooks-body li.endpoint';
/** Longer than the page's own 30 s wait for a test's delivery attempt, so the page's outcome decides. */
const DELIVERY_WAIT_MS = 35_000;

test.serial('add an endpoint, send a test, see the attempt appear; a refused URL shows the problem detail', async (t) => {
  const account = await newAccount(10);
  const { page, problems, close } = await openDashboard(browser(), { path: '/dashboard/webhooks' });
  try {
    await signIn(page, account.ownerToken);

    // A URL the service refuses: its problem detail is shown at the field.
    await page.locator('#webhook-url').fill('ftp://example.com/hook');
    await page.click('#webhook-form button[type=submit]');
    const error = await waitForText(page, '#webhook-url-error', /./);
    t.regex(error, /scheme|https/i);
    t.is(await page.$eval('#webhook-url', (el) => el.getAttribute('aria-invalid')), 'true');
    t.is((await focused(page)).id, 'webhook-url');
    await screenshot(page, 'webhook-refused');

    const url = receiver.url('/dashboard-hook');
    await page.locator('#webhook-url').fill(url);
    await page.click('#webhook-form button[type=submit]');
    await page.waitForSelector('#webhook-secret .secret-value');
    const secret = await page.$eval('#webhook-secret .secret-value', (el) => (el as HTMLInputElement).value);
    t.regex(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    t.is(await page.$eval('#webhook-url', (el) => el.getAttribute('aria-invalid')), null, 'the error is cleared');
    await page.waitForSelector(card);
    t.is(await textOf(page, `${card} h3`), url);
    t.regex(await textOf(page, `${card} .endpoint-facts`), /Status\s+Active[\s\S]*Consecutive failures\s+0/);
    await waitForText(page, `${card} .attempts`, /No delivery attempts yet/);
    await screenshot(page, 'webhook-added');

    // Send test: the receiver gets webhook.test signed with the secret the page showed.
    await (await button(page, card, 'Send test')).click();
    const [delivery] = await receiver.waitFor((all) => all.some((d) => d.path === '/dashboard-hook'), 20_000, 'the test event');
    t.is(delivery!.body.event, 'webhook.test');
    t.true(verifyWebhook(secret, delivery!.headers, delivery!.rawBody, delivery!.receivedAt), 'the secret shown verifies the delivery');
    t.regex(await waitForText(page, `${card} .test-result`, /delivered/, DELIVERY_WAIT_MS), /Test event delivered: HTTP 200 in \d+ ms\./);
    const row = await textOf(page, `${card} .attempts tbody tr:first-child`);
    t.regex(row, /webhook\.test/);
    t.true(row.includes(delivery!.body.id));
    t.regex(row, /\b200\b[\s\S]*\d+ ms[\s\S]*Delivered/);
    await screenshot(page, 'webhook-attempt');

    // A failing receiver: the attempt shows the status and the error; the failure is counted.
    receiver.behave('/dashboard-hook', () => ({ status: 500 }));
    await (await button(page, card, 'Send test')).click();
    t.regex(
      await waitForText(page, `${card} .test-result`, /failed/, DELIVERY_WAIT_MS),
      /Test delivery failed with HTTP 500: The receiver answered HTTP 500\./,
    );
    t.regex(await textOf(page, `${card} .attempts tbody tr:first-child`), /500[\s\S]*Failed[\s\S]*The receiver answered HTTP 500/);
    // The count is written after the attempt, and the page reads it again for a few seconds only: on
    // a busy machine it may come later, so the test waits for it through the API and has the page read again.
    await eventually(
      () => endpointOf(account, delivery!.body.data.endpointId),
      (e) => e?.consecutiveFailures >= 1,
      60_000,
      'the failure counted',
    );
    await refresh(page);
    await waitForText(page, `${card} .endpoint-facts`, /Consecutive failures\s+[1-9]/);
    await screenshot(page, 'webhook-failure');
    t.deepEqual(problems, []);
  } finally {
    receiver.behave('/dashboard-hook', () => ({ status: 200 }));
    await close();
  }
});

test.serial('a disabled endpoint is re-enabled from the page; attempts page with "Load more"; delete asks first', async (t) => {
  const account = await newAccount(10);
  const path = '/dashboard-down';
  let down = true;
  receiver.behave(path, () => ({ status: down ? 503 : 200 }));
  const { page, problems, close } = await openDashboard(browser(), { path: '/dashboard/webhooks' });
  try {
    await signIn(page, account.ownerToken);
    await page.locator('#webhook-url').fill(receiver.url(path));
    await page.click('#webhook-form button[type=submit]');
    await page.waitForSelector(card);
    const endpointId = await page.$eval(card, (el) => (el as HTMLElement).dataset.endpointId!);
    // 20 failures in a row disable it (each test event is attempted at once).
    await disableByFailures(account, endpointId);
    down = false;

    await page.click('#refresh');
    await waitForText(page, `${card} .endpoint-facts`, /Disabled since[\s\S]*Consecutive failures\s+20/);
    // The first 10 attempts, then 20 more on request.
    t.is(await page.$$eval(`${card} .attempts tbody tr`, (rows) => rows.length), 10);
    await screenshot(page, 'webhook-disabled');
    await (await button(page, card, 'Load more attempts')).click();
    await page.waitForFunction((sel: string) => document.querySelectorAll(`${sel} .attempts tbody tr`).length === 20, {}, card);
    t.is(await page.$(`${card} .attempts button.load-more`), null, 'all 20 are shown');

    await (await button(page, card, 'Re-enable')).click();
    await waitForText(page, `${card} .endpoint-facts`, /Status\s+Active[\s\S]*Consecutive failures\s+0/);
    t.is(await page.$$eval(`${card} button`, (bs) => bs.some((b) => b.textContent === 'Re-enable')), false);
    t.is((await focused(page)).text, 'Send test', 'focus passes to Send test when Re-enable goes');
    await waitForText(page, '#announcer', /re-enabled/);

    // Delete: Cancel keeps it and returns focus; confirming removes it.
    await (await button(page, card, 'Delete')).click();
    await page.waitForSelector('#confirm-dialog[open]');
    t.regex(await textOf(page, '#confirm-title'), /Delete endpoint http:\/\/localhost:\d+\/dashboard-down\?/);
    await page.click('#confirm-cancel');
    t.is((await focused(page)).text, 'Delete');
    t.not(await page.$(card), null);
    await (await button(page, card, 'Delete')).click();
    await page.waitForSelector('#confirm-dialog[open]');
    await page.click('#confirm-ok');
    await waitForText(page, '#webhooks-body', /No webhook endpoints yet/);
    t.is((await focused(page)).id, 'webhooks-title');
    t.is(await endpointOf(account, endpointId), undefined);
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});
