//! The dashboard at phone width (360 px, nothing wider than the screen, in every view; a header of
//! one line whose menu holds the account and sign-out), and axe-core's WCAG 2.2 AA rules on every view at desktop and phone width (an
//! endpoint's event types open, the event log filled, the phone's menu open; the signed-out views
//! with their problems shown; a person's Security page, account switch and re-authentication
//! dialog). The keyboard paths of the webhook requests are in webhook-requests.test.ts; the
//! router's own in router.test.ts; one flow by keyboard alone in keyboard.test.ts.
import test from 'ava';
import type { Page } from 'puppeteer-core';
import type { ExecutionContext } from 'ava';
import { callTool, newAccount, request, type TestAccount } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { client, joinAccount, signUp, type SignedUpPerson } from '../helpers/people.js';
import { attemptsOf, eventually, registerEndpoint, sendTest, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { browserForFile } from './browser-for-file.js';
import {
  PHONE,
  SIGNED_OUT_VIEWS,
  axeViolations,
  clickInHeader,
  focused,
  goTo,
  openDashboard,
  screenshot,
  signIn,
  signInWithPassword,
  submitToken,
  textOf,
  viewsOf,
  waitForView,
  type ViewId,
} from './page.js';

const browser = browserForFile();
let receiver: Receiver;
/** An account with calls, keys, an endpoint with attempts, a batch and a link secret: every view has content. */
let busy: TestAccount;
/** A person with an account of their own who also owns `busy`: the header switches between the two. */
let person: SignedUpPerson;

test.before(async () => {
  [receiver, person] = await Promise.all([startReceiver(), signUp(client(), { name: 'Ada Lovelace-Byron, of a rather long name' })]);
  busy = await newAccount(60, 'A company with a rather long name, Ltd');
  await joinAccount(client(), person, busy.ownerToken);
  for (const text of ['a', 'b', 'c']) await callTool(busy.apiKey, 'hash-text', { text });
  await callTool(busy.apiKey, 'qr-generate', { text: 'dashboard' });
  await callTool(busy.apiKey, 'hash-text', { text: 'later' }, { prefer: 'respond-async' });
  const batch = await request('POST', '/api/v1/batches', {
    token: busy.apiKey,
    body: { tool: 'hash-text', items: [{ text: 'one' }, { text: 'two' }] },
  });
  if (batch.status !== 202) throw new Error(`batch: ${batch.status}`);
  const linkSecret = await request('POST', '/api/v1/account/link-secrets', { token: busy.ownerToken, body: {} });
  if (linkSecret.status !== 201) throw new Error(`link secret: ${linkSecret.status}`);
  const endpoint = await registerEndpoint(busy, receiver.url('/a/fairly/long/path/for/a/webhook/receiver/that/must/wrap'));
  await sendTest(busy, endpoint.id);
  await eventually(
    () => attemptsOf(busy, endpoint.id),
    (rows) => rows.some((row) => row.event === 'webhook.test'),
    20_000,
    "the test event's attempt",
  );
});
test.after.always(async () => {
  await receiver?.close();
});

/** Waits for what a view shows once its data is in (the parts axe and the width checks look at). */
async function filled(page: Page, view: ViewId): Promise<void> {
  if (view === 'usage')
    await Promise.all([page.waitForSelector('#usage-body svg[role=img]'), page.waitForSelector('#async-calls-body tbody tr')]);
  if (view === 'webhooks')
    await Promise.all([page.waitForSelector('#webhooks-body .attempts tbody tr'), page.waitForSelector('#events-body tbody tr')]);
  if (view === 'batches') await page.waitForSelector('#batches-body tbody tr');
  if (view === 'render-links') await page.waitForSelector('#link-secrets-body tbody tr');
  if (view === 'overview') await page.waitForSelector('#grants-body tbody tr');
  if (view === 'team')
    await Promise.all([
      page.waitForSelector('#members-body tbody tr'),
      page.waitForSelector('#invitations-body .empty, #invitations-body tbody tr'),
    ]);
  if (view === 'security')
    await Promise.all([
      page.waitForSelector('#sessions-body tbody tr'),
      page.waitForSelector('#passkeys-body .empty, #passkeys-body tbody tr'),
    ]);
}

test.serial('at 360 px wide every view fits the width, the navigation is a menu, and tables become labelled cards', async (t) => {
  const { page, problems, close } = await openDashboard(browser(), { viewport: PHONE });
  try {
    // Against the phone's width, not the window's: a page wider than the screen makes a phone widen its
    // layout viewport (zoomed out), and then the window is as wide as the page.
    const overflow = () => page.evaluate((width) => document.documentElement.scrollWidth - width, PHONE.width);
    t.is(await overflow(), 0, 'sign-in');
    await screenshot(page, 'phone-sign-in');
    await signIn(page, busy.ownerToken);
    // The navigation is folded behind its Menu button, which opens it in the page's width.
    t.false(await page.$eval('#nav-list', (ul) => (ul as HTMLElement).offsetParent !== null), 'the links are folded away');
    await page.click('#nav-toggle');
    t.is(await page.$eval('#nav-toggle', (b) => b.getAttribute('aria-expanded')), 'true');
    t.is(await overflow(), 0, 'with the menu open');
    await screenshot(page, 'phone-menu', { fullPage: false });
    await page.click('#nav-toggle');

    for (const view of viewsOf('token')) {
      if (view !== 'overview') await goTo(page, view);
      await filled(page, view);
      t.is(await overflow(), 0, view);
      await screenshot(page, `phone-${view}`);
    }
    await goTo(page, 'usage');
    await filled(page, 'usage');
    const svgWidth = await page.$eval('#usage-body svg', (svg) => svg.getBoundingClientRect().width);
    t.true(svgWidth <= 360 - 24, `the chart is drawn for the phone (${svgWidth} px)`);
    // Cards: the header row is hidden and each cell shows its column's name.
    const label = await page.$eval('#calls tbody td', (td) => getComputedStyle(td, '::before').content);
    t.is(label, '"Time"');
    // The endpoint's event types opened.
    await goTo(page, 'webhooks');
    await filled(page, 'webhooks');
    await page.click('#webhooks-body .event-types summary');
    t.is(await overflow(), 0, 'with the event types open');
    await page.$eval('#webhooks-body .event-types', (el) => el.scrollIntoView());
    await screenshot(page, 'phone-event-types', { fullPage: false });

    await goTo(page, 'keys');
    await page.locator('#key-name').fill('phone');
    await page.click('#key-form button[type=submit]');
    await page.waitForSelector('#key-secret .secret-value');
    t.is(await overflow(), 0, 'with a new key shown');
    await page.$eval('#key-secret', (el) => el.scrollIntoView());
    await screenshot(page, 'phone-key-created', { fullPage: false });

    // The list is read again after a key is made: a locator finds the row's button in the new list.
    await page.locator('#keys-body tr:first-child button.danger').click();
    await page.waitForSelector('#confirm-dialog[open]');
    t.is(await overflow(), 0, 'with the dialog open');
    await screenshot(page, 'phone-revoke-dialog', { fullPage: false });
    await page.click('#confirm-cancel');

    // A person in two accounts: the menu holds the switch; the Security page fits too.
    await clickInHeader(page, '#sign-out');
    await waitForView(page, 'sign-in');
    await signInWithPassword(page, person.email, person.password);
    t.false(await page.$eval('#account-switch', (f) => (f as HTMLElement).hidden), 'the switch is there');
    await page.click('#nav-toggle');
    t.true(await page.$eval('#account-switch', (f) => (f as HTMLElement).offsetParent !== null), 'the switch is shown in the menu');
    t.is(await overflow(), 0, 'the menu with the switch');
    await screenshot(page, 'phone-menu-person', { fullPage: false });
    await page.click('#nav-toggle');
    await goTo(page, 'security');
    await filled(page, 'security');
    t.is(await overflow(), 0, 'security');
    await screenshot(page, 'phone-security');
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial(
  'at 360 px the header is one line: the view starts near the top, and who is signed in, Refresh and Sign out are in the menu',
  async (t) => {
    const { page, problems, close } = await openDashboard(browser(), { viewport: PHONE });
    const shown = (selector: string) => page.$eval(selector, (el) => (el as HTMLElement).offsetParent !== null);
    try {
      await signInWithPassword(page, person.email, person.password);
      // The view's heading within the top sixth of the screen: the brand and the Menu button above it, nothing else.
      const headingTop = await page.$eval('#views > :not([hidden]) h1', (h1) => h1.getBoundingClientRect().top);
      t.true(headingTop <= PHONE.height / 6, `the view's heading starts ${headingTop} px down a ${PHONE.height} px screen`);
      for (const part of ['#person-name', '#account-name', '#account-switch', '#refresh', '#sign-out'])
        t.false(await shown(part), `${part} is folded into the menu`);

      await page.click('#nav-toggle');
      t.is(await page.$eval('#nav-toggle', (b) => b.getAttribute('aria-expanded')), 'true');
      t.regex(await textOf(page, '#person-name'), /Ada Lovelace-Byron/);
      t.regex(await textOf(page, '#account-name'), /^Signed in to /);
      for (const part of ['#account-switch', '#refresh', '#sign-out', '#nav-list'])
        t.true(await shown(part), `${part} is in the open menu`);
      // Escape from the account's controls closes the menu and gives its button the focus back.
      await page.focus('#refresh');
      await page.keyboard.press('Escape');
      t.false(await shown('#sign-out'));
      t.like(await focused(page), { id: 'nav-toggle' });

      // Signing out through the menu.
      await page.click('#nav-toggle');
      await page.click('#sign-out');
      await waitForView(page, 'sign-in');
      t.true(await page.$eval('#nav-toggle', (b) => (b as HTMLElement).hidden), 'no menu once signed out');
      t.deepEqual(problems, []);
    } finally {
      await close();
    }
  },
);

test.serial('at desktop width the header shows who is signed in, Refresh and Sign out, with no Menu button', async (t) => {
  const { page, problems, close } = await openDashboard(browser());
  const shown = (selector: string) => page.$eval(selector, (el) => (el as HTMLElement).offsetParent !== null);
  try {
    await signInWithPassword(page, person.email, person.password);
    t.false(await shown('#nav-toggle'));
    for (const part of ['#person-name', '#account-name', '#account-switch', '#refresh', '#sign-out', '#nav-list'])
      t.true(await shown(part), `${part} is shown`);
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

/** Opens the dashboard for axe (the CSP bypassed only here, so axe's script can be injected), at each width in turn. */
async function eachWidth(
  t: ExecutionContext,
  check: (page: Page, where: string, visit: (path: string, view: Parameters<typeof waitForView>[1]) => Promise<void>) => Promise<void>,
) {
  for (const viewport of [undefined, PHONE]) {
    const where = viewport ? 'phone' : 'desktop';
    const { page, problems, close } = await openDashboard(browser(), { viewport, bypassCsp: true });
    /** Opens `path` afresh (axe is injected again) and waits for `view`. */
    const visit = async (path: string, view: Parameters<typeof waitForView>[1]) => {
      await page.goto(`${new URL(page.url()).origin}${path}`, { waitUntil: 'networkidle0' });
      await waitForView(page, view);
    };
    try {
      await check(page, where, visit).catch(async (err: Error) => {
        const file = await screenshot(page, `axe-failed-${where}-${Date.now()}`).catch(() => '(no screenshot)');
        throw new Error(
          `${where}: ${err.message} (page saved as ${file}; focus on ${JSON.stringify(await focused(page).catch(() => null))})`,
          { cause: err },
        );
      });
      t.deepEqual(problems, [], where);
    } finally {
      await close();
    }
  }
}

test.serial(
  'axe-core finds no WCAG 2.2 A/AA or best-practice violation on the signed-out views, their problems shown, at desktop and phone width',
  async (t) => {
    await eachWidth(t, async (page, where, visit) => {
      t.deepEqual(await axeViolations(page), [], `${where} sign-in`);
      // The person's form with its problems shown under the fields, and the token's.
      await page.click('#sign-in-form button[type=submit]');
      await page.waitForSelector('#sign-in-email[aria-invalid=true]');
      t.deepEqual(await axeViolations(page), [], `${where} sign-in field errors`);
      await submitToken(page, 'nope');
      await page.waitForSelector('#token-error:not([hidden])');
      t.deepEqual(await axeViolations(page), [], `${where} sign-in token error`);
      // Every signed-out view, and those of the mails' links (with a link that does not work).
      for (const [view, path] of Object.entries(SIGNED_OUT_VIEWS) as [keyof typeof SIGNED_OUT_VIEWS, string][]) {
        await visit(path, view);
        t.deepEqual(await axeViolations(page), [], `${where} ${view}`);
      }
      await visit('/dashboard/sign-up', 'sign-up');
      await page.locator('#sign-up-email').fill('someone@mail.test');
      await page.locator('#sign-up-password').fill('too short');
      await page.click('#sign-up-form button[type=submit]');
      await page.waitForSelector('#sign-up-password[aria-invalid=true]');
      t.deepEqual(await axeViolations(page), [], `${where} sign-up field error`);
      await visit('/dashboard/reset?token=not-a-real-token', 'reset');
      t.deepEqual(await axeViolations(page), [], `${where} reset, choosing the password`);
      // A path no view has.
      await visit('/dashboard/no-such-view', 'not-found');
      t.deepEqual(await axeViolations(page), [], `${where} not found`);
    });
  },
);

test.serial(
  'axe-core finds no WCAG 2.2 A/AA or best-practice violation on any view of an owner-token sign-in, at desktop and phone width',
  async (t) => {
    await eachWidth(t, async (page, where) => {
      await signIn(page, busy.ownerToken);
      for (const view of viewsOf('token')) {
        if (view !== 'overview') await goTo(page, view);
        await filled(page, view);
        if (view === 'usage') await page.click('.chart-details summary');
        if (view === 'webhooks') await page.click('#webhooks-body .event-types summary');
        t.deepEqual(await axeViolations(page), [], `${where} ${view}`);
      }
      if (where === 'phone') {
        await page.click('#nav-toggle');
        t.deepEqual(await axeViolations(page), [], `${where} menu open`);
        await page.click('#nav-toggle');
      }
      await goTo(page, 'webhooks');
      await page.locator('#webhook-url').fill('https://');
      await page.click('#webhook-form button[type=submit]');
      await page.waitForSelector('#webhook-url-error:not([hidden])');
      t.deepEqual(await axeViolations(page), [], `${where} form error`);
      await goTo(page, 'keys');
      await page.click('#keys-body tr:first-child button.danger');
      await page.waitForSelector('#confirm-dialog[open]');
      t.deepEqual(await axeViolations(page), [], `${where} dialog`);
      await page.click('#confirm-cancel');
    });
  },
);

test.serial(
  "axe-core finds no WCAG 2.2 A/AA or best-practice violation on a person's views: the account switch, Security, the re-authentication dialog, an invitation",
  async (t) => {
    await eachWidth(t, async (page, where, visit) => {
      await signInWithPassword(page, person.email, person.password);
      t.false(await page.$eval('#account-switch', (f) => (f as HTMLElement).hidden), 'the switch is shown');
      t.deepEqual(await axeViolations(page), [], `${where} person's overview`);
      await goTo(page, 'security');
      await filled(page, 'security');
      t.deepEqual(await axeViolations(page), [], `${where} security`);
      // Over 10 minutes after the sign-in, a password change first asks the person to confirm it is them.
      await withServiceDb((db) =>
        db
          .collection('sessions')
          .updateMany({ userId: person.userId, endedAt: null }, { $set: { authenticatedAt: new Date(Date.now() - 11 * 60_000) } }),
      );
      await page.locator('#current-password').fill(person.password);
      await page.locator('#new-password').fill(person.password);
      await page.keyboard.press('Enter');
      await page.waitForSelector('#reauth-dialog[open], #password-form [role=alert]:not([hidden]), #password-status:not(:empty)');
      t.is(
        await page.$eval('#password-form [role=alert]', (el) => (el as HTMLElement).hidden || (el as HTMLElement).innerText),
        true,
        `${where}: no problem in the form`,
      );
      t.is(await textOf(page, '#password-status'), '', `${where}: not changed without confirming`);
      await page.waitForSelector('#reauth-dialog[open]');
      t.deepEqual(await axeViolations(page), [], `${where} re-authentication dialog`);
      // Escape cancels it (by keyboard: a phone's emulated taps land off target while an input has the focus).
      await page.keyboard.press('Escape');
      await page.waitForSelector('#reauth-dialog:not([open])');
      t.regex(await textOf(page, '#password-form [role=alert]'), /Nothing was changed/);
      t.like(await focused(page), { tag: 'button', text: 'Change password' }, 'the focus is back on the form');
      await visit('/dashboard/invitation?token=not-a-real-token', 'invitation');
      t.deepEqual(await axeViolations(page), [], `${where} invitation, signed in`);
    });
  },
);
