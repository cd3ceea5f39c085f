//! The story in one go, on one account, in the browser against the running stack: sign
//! in, create a key (shown once, copied), call a tool with it and see the balance and the call
//! (with its request id) on the page, add an endpoint at a receiver in this process (its secret
//! shown once signs the deliveries), send a test and see the attempt, revoke the key after a
//! confirmation: its next call is refused with 401 and the `api_key.revoked` delivery is listed.
//! The details of each part are in keys-usage, webhooks, session and layout tests.
import test from 'ava';
import { callTool, newAccount, request } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';
import { receiverForFile } from '../helpers/receiver-for-file.js';
import { verifyWebhook } from '../../lib/webhook-signature.js';
import { browserForFile } from './browser-for-file.js';
import {
  buttonIn,
  endpointCard,
  focused,
  goTo,
  keyRow,
  lastAnnouncement,
  openDashboard,
  refresh,
  screenshot,
  signIn,
  storedInTab,
  textOf,
  waitForHandleText,
  waitForIdle,
  waitForText,
} from './page.js';

const browser = browserForFile();
const receiver = receiverForFile();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const innerText = (el: Element) => (el as HTMLElement).innerText;

test('sign in, create a key and call a tool with it, add an endpoint and test it, revoke the key', async (t) => {
  const account = await newAccount(100, 'Flow Ltd');
  const { page, context, problems, close } = await openDashboard(browser());
  try {
    await context.overridePermissions(testEnv.apiUrl(), ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
    await signIn(page, account.ownerToken);
    t.is(await textOf(page, '#balance'), '100 credits');
    await screenshot(page, 'flow-1-signed-in');

    // A key, shown once with a copy button; focus goes to it.
    await goTo(page, 'keys');
    await page.locator('#key-name').fill('CI pipeline');
    await page.click('#key-form button[type=submit]');
    await page.waitForSelector('#key-secret .secret-panel');
    const key = await page.$eval('#key-secret input.secret-value', (el) => (el as HTMLInputElement).value);
    t.regex(key, /^utk_[0-9A-Za-z]{40}$/);
    t.regex((await focused(page)).text, /New API key “CI pipeline”/);
    await lastAnnouncement(page, /API key created/);
    await (await buttonIn((await page.$('#key-secret'))!, 'Copy key')).click();
    await waitForText(page, '#key-secret .copy-status', /Copied/);
    t.is(await page.evaluate(() => navigator.clipboard.readText()), key);
    t.regex(await (await keyRow(page, key.slice(0, 12))).evaluate(innerText), /CI pipeline[\s\S]*Never[\s\S]*Active/);
    await screenshot(page, 'flow-2-key-created');
    // The tab stores nothing: the owner token is in the page's memory only; the key is gone once dismissed.
    const stored = await storedInTab(page);
    t.deepEqual({ local: stored.local, session: stored.session, cookie: stored.cookie }, { local: [], session: [], cookie: '' });
    t.false(stored.url.includes(key) || stored.url.includes(account.ownerToken));
    await (await buttonIn((await page.$('#key-secret'))!, "Done, I've saved it")).click();
    t.is((await focused(page)).id, 'key-name');
    t.false((await page.content()).includes(key));

    // Two calls with it (two tools): balance, total, chart, legend and ledger rows follow.
    const hash = await callTool(key, 'hash-text', { text: 'dashboard' });
    const bcrypt = await callTool(key, 'bcrypt-hash', { password: 'correct horse', workFactor: 4 });
    t.deepEqual([hash.status, bcrypt.status], [200, 200]);
    await goTo(page, 'overview');
    t.is(await textOf(page, '#balance'), '97 credits');
    await goTo(page, 'usage');
    t.is(await textOf(page, '#used-total'), '3 credits');
    const calls = await textOf(page, '#calls');
    for (const res of [hash, bcrypt]) t.true(calls.includes(res.headers.get('x-request-id')!), 'each row shows its request id');
    t.is(await page.$$eval('#calls a', (links) => links.length), 0, 'request ids are text, not links (the Temporal UI is for operators)');
    // The chart is drawn once its data is read, which may come after the total.
    await page.waitForSelector('.chart svg[role=img] desc');
    t.regex(
      await page.$eval('.chart svg[role=img] desc', (d) => d.textContent ?? ''),
      /3 credits used over the last 14 days.*bcrypt-hash 2, hash-text 1/,
    );
    t.deepEqual(await page.$$eval('.legend li', (lis) => lis.map((li) => li.textContent)), [
      'bcrypt-hash: 2 credits',
      'hash-text: 1 credit',
    ]);
    await page.click('.chart-details summary');
    t.regex(await textOf(page, '.chart-table tbody tr:first-child'), /3\s+bcrypt-hash 2, hash-text 1/);
    await refresh(page);
    t.true(await page.$eval('.chart-details', (d) => (d as HTMLDetailsElement).open), 'the table stays open across a refresh');
    await screenshot(page, 'flow-3-usage');
    await goTo(page, 'keys');
    t.notRegex(await (await keyRow(page, key.slice(0, 12))).evaluate(innerText), /Never/, 'the key shows its last use');

    // A refused address: the service's problem detail, word for word, at the field.
    await goTo(page, 'webhooks');
    await page.locator('#webhook-url').fill('https://10.1.2.3/hook');
    await page.click('#webhook-form button[type=submit]');
    const refusedText = await waitForText(page, '#webhook-url-error', /./);
    const refused = await request('POST', '/api/v1/account/webhooks', {
      token: account.ownerToken,
      body: { url: 'https://10.1.2.3/hook' },
    });
    t.is(refused.body.code, 'target_not_allowed');
    t.true(refusedText.includes(refused.body.detail));

    // An endpoint at the receiver: its secret once; Send test; the attempt is listed.
    const url = receiver.url('/hooks/flow');
    await page.locator('#webhook-url').fill(url);
    await page.click('#webhook-form button[type=submit]');
    await page.waitForSelector('#webhook-secret .secret-panel');
    const secret = await page.$eval('#webhook-secret input.secret-value', (el) => (el as HTMLInputElement).value);
    t.regex(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    const card = await endpointCard(page, url);
    t.regex(await card.evaluate(innerText), /Status\s+Active[\s\S]*Consecutive failures\s+0[\s\S]*No delivery attempts yet/);
    await screenshot(page, 'flow-4-endpoint-added');
    await (await buttonIn((await page.$('#webhook-secret'))!, "Done, I've saved it")).click();
    t.false((await page.content()).includes(secret));
    await (await buttonIn(card, 'Send test')).click();
    await waitForHandleText(page, (await card.$('.test-result'))!, /Test event delivered: HTTP 200 in \d+ ms\./);
    const [test1] = await receiver.waitFor((all) => all.some((d) => d.body?.event === 'webhook.test'), 10_000);
    t.true(verifyWebhook(secret, test1!.headers, test1!.rawBody, test1!.receivedAt), 'the secret shown signs the deliveries');
    const testRow = await card.waitForSelector(`tr[data-event-id="${test1!.body.id}"]`);
    t.regex(await testRow!.evaluate(innerText), /webhook\.test[\s\S]*200[\s\S]*\d+ ms[\s\S]*Delivered/);
    await screenshot(page, 'flow-5-test-delivered');

    // Revoke, confirmed in the dialog: the next call is refused, the endpoint hears of it.
    await goTo(page, 'keys');
    await (await buttonIn(await keyRow(page, key.slice(0, 12)), 'Revoke')).click();
    await page.waitForSelector('#confirm-dialog[open]');
    t.regex(await textOf(page, '#confirm-title'), /Revoke key “CI pipeline”/);
    await screenshot(page, 'flow-6-revoke-confirm', { fullPage: false });
    await page.click('#confirm-ok');
    await lastAnnouncement(page, /revoked/);
    await waitForIdle(page);
    t.regex(await (await keyRow(page, key.slice(0, 12))).evaluate(innerText), /Revoked/);
    t.is((await focused(page)).id, 'keys-title');
    await sleep(1100); // docs/API.md: refused within a second on every instance
    const after = await callTool(key, 'hash-text', { text: 'after revoke' });
    t.is(after.status, 401);
    t.is(after.body.code, 'unauthorized');
    const [revoked] = (await receiver.waitFor((all) => all.some((d) => d.body?.event === 'api_key.revoked'), 20_000)).filter(
      (d) => d.body?.event === 'api_key.revoked',
    );
    t.like(revoked!.body.data, { prefix: key.slice(0, 12), name: 'CI pipeline' });
    await goTo(page, 'webhooks');
    await (await buttonIn(card, 'Refresh attempts')).click();
    await card.waitForSelector(`tr[data-event-id="${revoked!.body.id}"]`);
    await screenshot(page, 'flow-7-key-revoked');
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});
