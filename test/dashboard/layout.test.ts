//! The dashboard at phone width (360 px, nothing wider than the screen), one flow by keyboard
//! alone (sign in, create a key, revoke it through the dialog), and axe-core's WCAG 2.2 AA rules
//! on every screen (an endpoint's event types open, the event log filled). The keyboard paths of
//! the webhook requests are in webhook-requests.test.ts.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import test from 'ava';
import type { Browser, KeyInput, Page } from 'puppeteer-core';
import { callTool, newAccount, type TestAccount } from '../helpers/api.js';
import { attemptsOf, eventually, registerEndpoint, sendTest, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { PHONE, focused, launchBrowser, openDashboard, screenshot, signIn, textOf, waitForIdle } from './page.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let browser: Browser;
let receiver: Receiver;
/** An account with calls, keys and an endpoint with attempts: every part of the page has content. */
let busy: TestAccount;

test.before(async () => {
  [browser, receiver] = await Promise.all([launchBrowser(), startReceiver()]);
  busy = await newAccount(60, 'A company with a rather long name, Ltd');
  for (const text of ['a', 'b', 'c']) await callTool(busy.apiKey, 'hash-text', { text });
  await callTool(busy.apiKey, 'qr-generate', { text: 'dashboard' });
  await callTool(busy.apiKey, 'hash-text', { text: 'later' }, { prefer: 'respond-async' });
  const endpoint = await registerEndpoint(busy, receiver.url('/a/fairly/long/path/for/a/webhook/receiver/that/must/wrap'));
  await sendTest(busy, endpoint.id);
  await eventually(() => attemptsOf(busy, endpoint.id), (rows) => rows.length === 1, 20_000, 'the attempt');
});
test.after.always(async () => {
  await Promise.all([browser?.close(), receiver?.close()]);
});

/** Runs axe-core's WCAG A/AA rules on the page as it is; returns the violations, described. */
async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } });
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

test.serial('at 360 px wide every screen fits the width, and tables become labelled cards', async (t) => {
  const { page, problems, close } = await openDashboard(browser, { viewport: PHONE });
  try {
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    t.is(await overflow(), 0, 'sign-in');
    await screenshot(page, 'phone-sign-in');
    await signIn(page, busy.ownerToken);
    await page.waitForSelector('#usage-body svg[role=img]');
    // Let the chart draw itself at its real width and the attempts arrive.
    await page.waitForSelector('#webhooks-body .attempts tbody tr');
    t.is(await overflow(), 0, 'dashboard');
    const svgWidth = await page.$eval('#usage-body svg', (svg) => svg.getBoundingClientRect().width);
    t.true(svgWidth <= 360 - 24, `the chart is drawn for the phone (${svgWidth} px)`);
    // Cards: the header row is hidden and each cell shows its column's name.
    const label = await page.$eval('#calls tbody td', (td) => getComputedStyle(td, '::before').content);
    t.is(label, '"Time"');
    await screenshot(page, 'phone-dashboard');
    // The endpoint's event types opened, and the event log.
    await page.click('#webhooks-body .event-types summary');
    await page.waitForSelector('#events-body tbody tr');
    await page.waitForSelector('#async-calls-body tbody tr');
    t.is(await overflow(), 0, 'with the event types, the event log and the asynchronous calls');
    await page.$eval('#webhooks-body .event-types', (el) => el.scrollIntoView());
    await screenshot(page, 'phone-event-types', { fullPage: false });

    await page.locator('#key-name').fill('phone');
    await page.click('#key-form button[type=submit]');
    await page.waitForSelector('#key-secret .secret-value');
    t.is(await overflow(), 0, 'with a new key shown');
    await page.$eval('#key-secret', (el) => el.scrollIntoView());
    await screenshot(page, 'phone-key-created', { fullPage: false });

    await page.click('#keys-body tr:first-child button.danger');
    await page.waitForSelector('#confirm-dialog[open]');
    t.is(await overflow(), 0, 'with the dialog open');
    await screenshot(page, 'phone-revoke-dialog', { fullPage: false });
    await page.click('#confirm-cancel');
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial('keyboard only: sign in, create a key, dismiss it, revoke it through the dialog', async (t) => {
  const account = await newAccount(20);
  const { page, problems, close } = await openDashboard(browser);
  const press = (key: KeyInput) => page.keyboard.press(key);
  /** Tabs forward until `match` has focus; fails after `max` presses. */
  async function tabTo(match: (f: Awaited<ReturnType<typeof focused>>) => boolean, what: string, max = 40) {
    for (let i = 0; i < max; i++) {
      await press('Tab');
      if (match(await focused(page))) return;
    }
    throw new Error(`Tab never reached ${what}`);
  }
  try {
    await tabTo((f) => f.text === 'Skip to content', 'the skip link', 1);
    await tabTo((f) => f.id === 'token', 'the token field', 3);
    await page.keyboard.type(account.ownerToken);
    await press('Enter');
    await page.waitForSelector('#dashboard-view:not([hidden])');
    await waitForIdle(page);
    t.is((await focused(page)).id, 'dashboard-title', 'focus moves to the dashboard');

    await tabTo((f) => f.id === 'key-name', 'the key name');
    await page.keyboard.type('keyboard');
    await press('Enter');
    await page.waitForSelector('#key-secret .secret-value');
    t.like(await focused(page), { tag: 'h3', inside: 'key-secret' });
    await tabTo((f) => f.text === 'Copy key', 'Copy key', 3);
    await tabTo((f) => f.text === "Done, I've saved it", 'Done', 3);
    await screenshot(page, 'keyboard-key-created');
    await press('Enter');
    t.is((await focused(page)).id, 'key-name', 'back to the form once the key is hidden');

    await tabTo((f) => f.text === 'Revoke' && f.inside === 'keys-body', 'the new key’s Revoke');
    const target = await page.evaluate(() => document.activeElement!.getAttribute('aria-label'));
    t.is(target, 'Revoke key keyboard');
    await press('Enter');
    await page.waitForSelector('#confirm-dialog[open]');
    t.is((await focused(page)).id, 'confirm-cancel');
    // Escape cancels and returns focus to the button that opened the dialog.
    await press('Escape');
    await page.waitForSelector('#confirm-dialog:not([open])');
    t.is(await page.evaluate(() => document.activeElement!.getAttribute('aria-label')), 'Revoke key keyboard');
    await press('Enter');
    await page.waitForSelector('#confirm-dialog[open]');
    await press('Tab');
    t.is((await focused(page)).id, 'confirm-ok');
    await screenshot(page, 'keyboard-revoke-dialog', { fullPage: false });
    await press('Enter');
    await page.waitForFunction(() => /Revoked/.test((document.querySelector('#keys-body tbody tr:first-child') as HTMLElement)?.innerText ?? ''));
    t.is((await focused(page)).id, 'keys-title');
    t.regex(await textOf(page, '#announcer'), /Key “keyboard”.*revoked/);
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial('axe-core finds no WCAG 2.2 A/AA or best-practice violation on any screen', async (t) => {
  for (const viewport of [undefined, PHONE]) {
    const where = viewport ? 'phone' : 'desktop';
    // CSP bypassed only here, so axe's script can be injected into the page.
    const { page, close } = await openDashboard(browser, { viewport, bypassCsp: true });
    try {
      t.deepEqual(await axeViolations(page), [], `${where} sign-in`);
      await page.locator('#token').fill('nope');
      await page.click('#sign-in-form button[type=submit]');
      await page.waitForSelector('#token-error:not([hidden])');
      t.deepEqual(await axeViolations(page), [], `${where} sign-in error`);
      await signIn(page, busy.ownerToken);
      await page.waitForSelector('#webhooks-body .attempts tbody tr');
      await page.click('.chart-details summary');
      await page.click('#webhooks-body .event-types summary');
      await page.waitForSelector('#events-body tbody tr');
      await page.waitForSelector('#async-calls-body tbody tr');
      t.deepEqual(await axeViolations(page), [], `${where} dashboard`);
      await page.locator('#webhook-url').fill('https://');
      await page.click('#webhook-form button[type=submit]');
      await page.waitForSelector('#webhook-url-error:not([hidden])');
      await page.click('#keys-body tr:first-child button.danger');
      await page.waitForSelector('#confirm-dialog[open]');
      t.deepEqual(await axeViolations(page), [], `${where} dialog and form error`);
      await page.click('#confirm-cancel');
    } finally {
      await close();
    }
  }
});
