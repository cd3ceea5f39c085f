//! The owner's webhook requests on the dashboard, against a receiver in this process: choose an
//! endpoint's event types, rotate its secret (the new one, shown once, and the old one both verify
//! during the overlap; End previous secret leaves the new one alone), resend a delivery from the
//! attempts, re-enable with the missed events resent, and read the event log. By keyboard where
//! it matters (the event types, the rotation dialog).
import test from 'ava';
import type { KeyInput } from 'puppeteer-core';
import { adminToken, newAccount, request } from '../helpers/api.js';
import { disableByFailures, endpointOf, eventually, registerEndpoint, sendTest } from '../helpers/webhook-receiver.js';
import { receiverForFile } from '../helpers/receiver-for-file.js';
import { SUBSCRIBABLE_EVENT_KINDS } from '../../contracts/event-kinds.js';
import { verifyWebhook } from '../../lib/webhook-signature.js';
import { browserForFile } from './browser-for-file.js';
import {
  button,
  endpointCard,
  focused,
  openDashboard,
  refresh,
  screenshot,
  signIn,
  textOf,
  waitForHandleText,
  waitForText,
} from './page.js';

const browser = browserForFile();
const receiver = receiverForFile();

const card = '#webhooks-body li.endpoint';

test.serial('event types by keyboard; rotate the secret, both secrets verify, end the previous one; resend an attempt', async (t) => {
  const account = await newAccount(10);
  const path = '/dash-requests';
  const endpoint = await registerEndpoint(account, receiver.url(path));
  const { page, problems, close } = await openDashboard(browser(), { path: '/dashboard/webhooks' });
  const press = (key: KeyInput) => page.keyboard.press(key);
  try {
    await signIn(page, account.ownerToken);
    await page.waitForSelector(card);
    t.regex(
      await textOf(page, `${card} .endpoint-facts`),
      /Event types\s+credits\.low, credits\.exhausted, credits\.granted, credits\.voided, credits\.recharge_failed, api_key\.created, api_key\.revoked, batch\.completed, batch\.paused[\s\S]*Signing secret\s+One secret/,
    );

    // The choice offered is exactly what the API accepts; by keyboard: open, untick, save.
    await page.focus(`${card} .event-types summary`);
    await press('Enter');
    const offered = await page.$$eval(`${card} input[name=eventTypes]`, (boxes) =>
      boxes.map((b) => [(b as HTMLInputElement).value, (b as HTMLInputElement).checked]),
    );
    t.deepEqual(
      offered.map(([v]) => v),
      [...SUBSCRIBABLE_EVENT_KINDS],
      'the dashboard offers every type the API takes',
    );
    t.deepEqual(
      offered.filter(([, c]) => c).map(([v]) => v),
      endpoint.eventTypes,
    );
    await press('Tab');
    t.is((await focused(page)).id.endsWith('-type-credits.low'), true, 'Tab reaches the first box');
    for (let i = 0; i < 7; i++) {
      await press('Space'); // untick the seven defaults one after another
      await press('Tab');
    }
    await press('Space'); // tick call.completed
    await press('Tab');
    for (let i = 0; i < 9; i++) {
      await press('Space'); // untick the batch, member and monitor events, defaults too
      await press('Tab');
    }
    t.is((await focused(page)).text, 'Save event types');
    await press('Enter');
    await waitForText(page, `${card} .endpoint-facts`, /Event types\s+call\.completed\b/);
    t.deepEqual((await endpointOf(account, endpoint.id)).eventTypes, ['call.completed']);
    await waitForText(page, '#announcer', /Event types saved: call\.completed\./);
    // None at all is refused on the page, before any request.
    await page.click(`${card} input[value="call.completed"]`);
    await (await button(page, card, 'Save event types')).click();
    await waitForText(page, `${card} .event-types-form .field-error`, /at least one/);
    t.deepEqual((await endpointOf(account, endpoint.id)).eventTypes, ['call.completed']);
    await screenshot(page, 'webhook-event-types');

    // Rotate: asked first, by keyboard; the new secret is shown once.
    const rotate = await button(page, card, 'Rotate secret');
    await rotate.focus();
    await press('Enter');
    await page.waitForSelector('#confirm-dialog[open]');
    t.regex(await textOf(page, '#confirm-body'), /24 hours/);
    t.is((await focused(page)).id, 'confirm-cancel');
    await press('Tab');
    await press('Enter');
    await page.waitForSelector(`${card} .endpoint-secret .secret-value`);
    const newSecret = await page.$eval(`${card} .endpoint-secret .secret-value`, (el) => (el as HTMLInputElement).value);
    t.regex(newSecret, /^whsec_[A-Za-z0-9_-]{43}$/);
    t.not(newSecret, endpoint.secret);
    await waitForText(page, `${card} .endpoint-facts`, /Signing secret\s+Rotated: the previous secret also signs until/);
    await screenshot(page, 'webhook-rotated');
    await (await button(page, `${card} .endpoint-secret`, "Done, I've saved it")).click();
    t.is((await focused(page)).text, 'Rotate secret');

    const inWindow = await sendTest(account, endpoint.id);
    const [d] = (await receiver.waitFor((all) => all.some((x) => x.body?.id === inWindow), 20_000, 'a delivery in the window')).filter(
      (x) => x.body?.id === inWindow,
    );
    t.true(verifyWebhook(endpoint.secret, d!.headers, d!.rawBody, d!.receivedAt), 'the old secret verifies');
    t.true(verifyWebhook(newSecret, d!.headers, d!.rawBody, d!.receivedAt), 'the new secret verifies');

    await (await button(page, card, 'End previous secret')).click();
    await page.waitForSelector('#confirm-dialog[open]');
    await page.click('#confirm-ok');
    await waitForText(page, `${card} .endpoint-facts`, /Signing secret\s+One secret/);
    t.is((await focused(page)).text, 'Rotate secret', 'focus passes to Rotate secret when its neighbour goes');
    t.is(await page.$$eval(`${card} button`, (bs) => bs.some((b) => b.textContent === 'End previous secret')), false);

    // Resend from the attempts: a new attempt, signed with the one secret left.
    await refresh(page);
    await page.waitForSelector(`${card} .attempts tbody tr`);
    await (await button(page, `${card} .attempts tbody tr:first-child`, 'Resend')).click();
    t.regex(
      await waitForText(page, `${card} .test-result`, /delivered again|failed/, 35_000),
      new RegExp(`Event ${inWindow} delivered again: HTTP 200\\.`),
    );
    const resent = receiver.deliveries(path).filter((x) => x.body?.id === inWindow);
    t.is(resent.length, 2);
    t.true(verifyWebhook(newSecret, resent[1]!.headers, resent[1]!.rawBody, resent[1]!.receivedAt));
    t.false(verifyWebhook(endpoint.secret, resent[1]!.headers, resent[1]!.rawBody, resent[1]!.receivedAt));
    t.regex(await textOf(page, `${card} .attempts tbody tr:first-child`), /Resent on request/);
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial('re-enable with the missed events resent; the event log shows each event and where it went', async (t) => {
  const account = await newAccount(10);
  const path = '/dash-recover';
  let down = true;
  receiver.behave(path, () => ({ status: down ? 503 : 200 }));
  const endpoint = await registerEndpoint(account, receiver.url(path));
  await disableByFailures(account, endpoint.id);
  // Missed while disabled.
  const granted = await request('POST', `/api/v1/admin/accounts/${account.id}/credits`, {
    token: adminToken(),
    body: { amount: 3, reason: 'purchase' },
  });
  t.is(granted.status, 200);
  down = false;

  const { page, problems, close } = await openDashboard(browser(), { path: '/dashboard/webhooks' });
  try {
    await signIn(page, account.ownerToken);
    const item = await endpointCard(page, endpoint.url);
    await waitForHandleText(page, item, /Disabled since/);
    // The event log: newest first; the grant went nowhere (the only endpoint is disabled), the tests failed there.
    await waitForText(page, '#events-body', /credits\.granted/);
    t.regex(await textOf(page, '#events-body tbody tr:first-child'), /credits\.granted[\s\S]*Not sent to any endpoint/);
    t.regex(
      await textOf(page, '#events-body tbody tr:nth-child(2)'),
      new RegExp(`webhook\\.test[\\s\\S]*${endpoint.url.replace(/[/.]/g, '\\$&')}[\\s\\S]*(Not delivered|Failing)`),
    );
    await screenshot(page, 'events-log');

    await page.select(`${card} select[name=recover]`, String(3_600_000));
    await (await button(page, card, 'Re-enable')).click();
    await waitForText(page, `${card} .endpoint-facts`, /Status\s+Active/);
    await waitForText(page, '#announcer', /missed are being resent/);
    t.true(await page.$eval(`${card} .recover-field`, (el) => (el as HTMLElement).hidden), 'the choice goes with the disabled state');
    // The grant and the 20 test events that never got through, each once, oldest first.
    const all = await receiver.waitFor(
      (ds) => ds.filter((d) => d.path === path && d.answered === 200).length >= 21,
      60_000,
      'the recovered events',
    );
    const recovered = all.filter((d) => d.path === path && d.answered === 200);
    t.is(recovered.length, 21);
    t.is(new Set(recovered.map((d) => d.body.id)).size, 21, 'each once');
    t.is(recovered.at(-1)!.body.event, 'credits.granted', 'the newest last');

    // The receiver has a delivery before its attempt is recorded: the page is read again once it is.
    await eventually(
      async () => (await request('GET', '/api/v1/account/events?limit=1', { token: account.ownerToken })).body.items?.[0],
      (e) => e?.event === 'credits.granted' && e.deliveries.some((d: { status: string }) => d.status === 'delivered'),
      60_000,
      'the grant recorded as delivered',
    );
    await refresh(page);
    await waitForText(page, '#events-body tbody tr:first-child', /credits\.granted[\s\S]*Delivered/);
    t.regex(await textOf(page, `${card} .attempts tbody tr:first-child`), /credits\.granted[\s\S]*Recovered/);
    // 21 events and more: the log pages with Load more, the focus on the first new row.
    await (await button(page, '#events-body', 'Load more events')).click();
    await page.waitForFunction(() => document.querySelectorAll('#events-body tbody tr').length > 20);
    t.is((await focused(page)).tag, 'tr');
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});
