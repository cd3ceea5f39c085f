//! People signing themselves up and in through the dashboard, in Chromium at the service's own
//! origin, with the mail read back from the stack's MailDev: sign-up, its link opening the
//! account signed in with the welcome credits; sign-in with a right and a wrong password and a
//! locked address; the password reset end to end; an owner-token sign-in attaching a person, who
//! accepts the invitation signed in and switches between their accounts; and a newcomer accepting
//! one with a password of their own. Problems show under their fields, announced, focus on the
//! first bad one; the pages say the same whatever the address.
import test from 'ava';
import type { Page } from 'puppeteer-core';
import { newAccount, request } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';
import { tokenFrom, uniqueAddress, waitForMail } from '../helpers/mailbox.js';
import { client, goodPassword, serviceOrigin, signUp } from '../helpers/people.js';
import { browserForFile } from './browser-for-file.js';
import {
  focused,
  goTo,
  noteShot,
  openDashboard,
  signIn,
  signInWithPassword,
  submitPassword,
  textOf,
  waitForIdle,
  waitForText,
  waitForView,
} from './page.js';

const browser = browserForFile();

const open = (path = '/dashboard') => openDashboard(browser(), { origin: serviceOrigin(), path });
const attribute = (page: Page, selector: string, name: string) => page.$eval(selector, (el, n) => el.getAttribute(n), name);
const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The link of `mail` to a dashboard page (`verify`, `reset`, `invitation`). */
const linkTo = (links: string[], page: string) => {
  const link = links.find((l) => l.includes(`/dashboard/${page}?token=`));
  if (!link) throw new Error(`no /dashboard/${page} link in ${links.join(', ')}`);
  return link;
};

/** Opens MailDev's own inbox (its web UI, which it serves to a browser) and the mail with `subject`: what a newcomer sees locally. */
async function openInInbox(subject: string, name: string): Promise<void> {
  const context = await browser().createBrowserContext();
  try {
    const inbox = await context.newPage();
    await inbox.setViewport({ width: 1280, height: 900 });
    await inbox.goto(testEnv.mailApiUrl(), { waitUntil: 'networkidle0' });
    const item = await inbox.waitForSelector(`::-p-text(${subject})`, { timeout: 20_000 });
    await item!.click();
    await inbox.waitForNetworkIdle({ idleTime: 500 });
    await noteShot(inbox, name, { fullPage: false });
  } finally {
    await context.close();
  }
}

test.serial('sign up in the browser, open the mailed link, land signed in on the overview with the welcome credits', async (t) => {
  const email = uniqueAddress('signup');
  const password = goodPassword();
  const { page, problems, close } = await open('/dashboard/sign-up');
  try {
    await waitForView(page, 'sign-up');
    // The rules are said before anyone types; the fields say what they hold.
    t.regex(await textOf(page, '#sign-up-password-help'), /15 to 256 characters of any kind.*Not a common or breached password/s);
    t.deepEqual(
      [
        await attribute(page, '#sign-up-email', 'autocomplete'),
        await attribute(page, '#sign-up-password', 'autocomplete'),
        await attribute(page, '#sign-up-name', 'autocomplete'),
      ],
      ['email', 'new-password', 'name'],
    );

    // A password under the rules: the service's reason under the field, announced, focus on it.
    await page.locator('#sign-up-email').fill(email);
    await page.locator('#sign-up-password').fill('short one');
    await page.click('#sign-up-form button[type=submit]');
    t.regex(await waitForText(page, '#sign-up-password-error', /./), /^Password must be at least 15 characters \(it has 9\)/);
    t.is(await attribute(page, '#sign-up-password', 'aria-invalid'), 'true');
    t.regex(await textOf(page, '#sign-up-form [role=alert]'), /Check the field marked below/);
    t.is((await focused(page)).id, 'sign-up-password');
    t.is(await attribute(page, '#sign-up-password', 'aria-describedby'), 'sign-up-password-help sign-up-password-error');

    await page.locator('#sign-up-password').fill(password);
    await page.locator('#sign-up-name').fill('Grace Hopper');
    await noteShot(page, 'shot-signup', { fullPage: false });
    const since = new Date(Date.now() - 1000);
    await page.click('#sign-up-form button[type=submit]');
    const sent = await waitForText(page, '#sign-up-sent:not([hidden])', /Check your mail/);
    t.true(sent.includes(email));
    t.is((await focused(page)).id, 'sign-up-sent-title');
    t.is(await page.$eval('#sign-up-password', (el) => (el as HTMLInputElement).value), '', 'the password is not kept in the page');

    const mail = await waitForMail(email, { subject: /Confirm your address/, since });
    const link = linkTo(mail.links, 'verify');
    t.true(link.startsWith(`${serviceOrigin()}/dashboard/verify?token=`), link);
    await openInInbox('Confirm your address', 'shot-verify-mail');

    // The link opens the account and signs in: the overview with the welcome credits, the token gone from the address.
    await page.goto(link, { waitUntil: 'networkidle0' });
    await waitForView(page, 'overview');
    t.is(new URL(page.url()).pathname + new URL(page.url()).search, '/dashboard');
    t.is(await textOf(page, '#balance'), '100 credits');
    t.regex(await textOf(page, '#grants-body'), /Welcome/);
    t.is(await textOf(page, '#person-name'), `Grace Hopper (${email})`);
    t.regex(await textOf(page, '#account-name'), /Signed in to Grace Hopper/);
    t.true(await page.$eval('#account-switch', (f) => (f as HTMLElement).hidden), 'one account: no switch');
    t.true((await page.$$eval('#nav-list a', (as) => as.map((a) => a.textContent))).includes('Security'));
    t.false((await page.$$eval('#nav-list a', (as) => as.map((a) => a.textContent))).includes('Attach yourself'));

    // Signed out, the same address signs up again: the same words (its mail says it has an account).
    await page.click('#sign-out');
    await waitForView(page, 'sign-in');
    await page.click('#sign-up-link');
    await waitForView(page, 'sign-up');
    await page.locator('#sign-up-email').fill(email);
    await page.locator('#sign-up-password').fill(goodPassword());
    const again = new Date(Date.now() - 1000);
    await page.click('#sign-up-form button[type=submit]');
    t.is(await waitForText(page, '#sign-up-sent:not([hidden])', /Check your mail/), sent);
    await waitForMail(email, { subject: /already have/, since: again });

    // The used link: said plainly, with the way to sign up again.
    await page.goto(link, { waitUntil: 'networkidle0' });
    await waitForView(page, 'verify');
    t.regex(await waitForText(page, '#verify-problem', /./), /This link does not work.*used already/);
    t.is(await page.$eval('#verify-sign-up', (a) => (a as HTMLAnchorElement).pathname), '/dashboard/sign-up');
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial(
  'sign in with a password: a wrong one is said in the form, the right one signs in; a locked address says when to try again',
  async (t) => {
    const person = await signUp(client(), { name: 'Sign-in person' });
    const { page, problems, close } = await open('/dashboard/keys');
    try {
      await waitForView(page, 'sign-in');
      t.deepEqual(
        [await attribute(page, '#sign-in-email', 'autocomplete'), await attribute(page, '#sign-in-password', 'autocomplete')],
        ['email', 'current-password'],
      );
      await submitPassword(page, person.email, 'not the password at all');
      t.regex(await waitForText(page, '#sign-in-form [role=alert]', /./), /The address or the password is not right/);
      t.is((await focused(page)).id, 'sign-in-password');
      t.true(await page.$eval('#account-bar', (el) => (el as HTMLElement).hidden), 'still signed out');

      await signInWithPassword(page, person.email, person.password);
      await waitForView(page, 'keys');
      t.is(new URL(page.url()).pathname, '/dashboard/keys', 'back to where sign-in was asked for');
      t.regex(await textOf(page, '#person-name'), new RegExp(escaped(person.email)));
      // The session is the cookie: HttpOnly, so the page cannot read it; nothing is stored.
      t.is(await page.evaluate(() => document.cookie + localStorage.length + sessionStorage.length), '00');
      const session = await request('GET', '/api/v1/auth/session');
      t.is(session.status, 401, 'outside the browser nobody is signed in');

      // Ten failures lock the address; the form then says when to try again.
      const locked = await signUp(client());
      const c = client();
      for (let i = 0; i < 10; i++)
        await c.request('POST', '/api/v1/auth/signin', { body: { email: locked.email, password: `wrong password number ${i}` } });
      await page.click('#sign-out');
      await waitForView(page, 'sign-in');
      await submitPassword(page, locked.email, locked.password);
      t.regex(await waitForText(page, '#sign-in-form [role=alert]', /./), /Too many failed sign-ins.*Try again in 1[45] minutes \(at \d/);
      t.deepEqual(problems, []);
    } finally {
      await close();
    }
  },
);

test.serial('reset the password end to end: the same words for any address, a mailed link, a new password, sign in with it', async (t) => {
  const person = await signUp(client());
  const unknown = uniqueAddress('nobody');
  const { page, problems, close } = await open('/dashboard/sign-in');
  try {
    await waitForView(page, 'sign-in');
    await page.click('#forgot-link');
    await waitForView(page, 'reset');
    await page.locator('#reset-email').fill(unknown);
    await page.click('#reset-request-form button[type=submit]');
    const forUnknown = await waitForText(page, '#reset-sent:not([hidden])', /Check your mail/);
    await page.click('#reset-again');
    await waitForView(page, 'reset');
    await page.locator('#reset-email').fill(person.email);
    const since = new Date(Date.now() - 1000);
    await page.click('#reset-request-form button[type=submit]');
    const forKnown = await waitForText(page, '#reset-sent:not([hidden])', /Check your mail/);
    t.is(forKnown.replace(person.email, 'X'), forUnknown.replace(unknown, 'X'), 'the page says the same whatever the address');

    const mail = await waitForMail(person.email, { subject: /Reset your/, since });
    const link = linkTo(mail.links, 'reset');
    await page.goto(link, { waitUntil: 'networkidle0' });
    await waitForView(page, 'reset');
    t.is(await attribute(page, '#reset-password', 'autocomplete'), 'new-password');
    await page.locator('#reset-password').fill('password');
    await page.click('#reset-form button[type=submit]');
    t.regex(await waitForText(page, '#reset-password-error', /./), /^New password must be at least 15 characters/);
    t.is((await focused(page)).id, 'reset-password');

    const fresh = goodPassword();
    await page.locator('#reset-password').fill(fresh);
    await page.click('#reset-form button[type=submit]');
    await waitForView(page, 'sign-in');
    t.regex(await textOf(page, '#sign-in-notice'), /Your password is changed.*Sign in with your new password/);
    // Every session ended, the one made at sign-up too.
    t.is((await client().request('GET', '/api/v1/auth/session', { cookie: person.cookie })).status, 401);

    await submitPassword(page, person.email, person.password);
    await waitForText(page, '#sign-in-form [role=alert]', /not right/);
    await signInWithPassword(page, person.email, fresh);
    await waitForView(page, 'overview');

    // The link worked once.
    await page.click('#sign-out');
    await waitForView(page, 'sign-in');
    await page.goto(link, { waitUntil: 'networkidle0' });
    await waitForView(page, 'reset');
    await page.locator('#reset-password').fill(goodPassword());
    await page.click('#reset-form button[type=submit]');
    t.regex(await waitForText(page, '#reset-form [role=alert]', /./), /This link does not work/);
    t.false(await page.$eval('#reset-request-form', (f) => (f as HTMLElement).offsetParent === null), 'and the way to a new one is shown');
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial(
  'an owner-token sign-in attaches a person, who accepts signed in and switches between their accounts; a newcomer accepts with a password',
  async (t) => {
    const operated = await newAccount(30, 'Operator Opened Ltd');
    const person = await signUp(client(), { name: 'Attached person' });

    // The operator's account, signed in with its token: a form to attach a person (hidden for people).
    const owner = await openDashboard(browser());
    try {
      await signIn(owner.page, operated.ownerToken);
      t.false(
        (await owner.page.$$eval('#nav-list a', (as) => as.map((a) => a.textContent))).includes('Security'),
        'no security settings for a token',
      );
      await owner.page.click('#attach-note a');
      await waitForView(owner.page, 'attach');
      const since = new Date(Date.now() - 1000);
      await owner.page.locator('#attach-email').fill(person.email);
      await owner.page.click('#attach-form button[type=submit]');
      t.true((await waitForText(owner.page, '#attach-sent:not([hidden])', /Check your mail/)).includes(person.email));
      t.deepEqual(owner.problems, []);
      const link = linkTo((await waitForMail(person.email, { subject: /invited to Operator Opened Ltd/, since })).links, 'invitation');

      // The person, signed in, opens the link and accepts: the session moves to that account.
      const { page, problems, close } = await open('/dashboard/sign-in');
      try {
        await signInWithPassword(page, person.email, person.password);
        await page.goto(link, { waitUntil: 'networkidle0' });
        await waitForView(page, 'invitation');
        t.regex(await textOf(page, '#invitation-body'), new RegExp(`signed in as ${escaped(person.email)}`));
        await page.click('#invitation-accept-form button[type=submit]');
        await waitForView(page, 'overview');
        t.is(new URL(page.url()).pathname, '/dashboard');
        t.is(await waitForText(page, '#balance', /credits/), '30 credits');
        t.regex(await textOf(page, '#account-name'), /Signed in to Operator Opened Ltd/);

        // Two accounts: the header switches, and every view reads the other account.
        t.false(await page.$eval('#account-switch', (f) => (f as HTMLElement).hidden));
        t.deepEqual(await page.$$eval('#account-select option', (os) => os.map((o) => o.textContent)), [
          'Attached person',
          'Operator Opened Ltd',
        ]);
        await page.select('#account-select', person.accountId);
        await page.click('#account-switch button[type=submit]');
        await waitForText(page, '#account-name', /Signed in to Attached person/);
        await waitForIdle(page);
        t.is(await waitForText(page, '#balance', /credits/), '100 credits');
        t.deepEqual(problems, []);
      } finally {
        await close();
      }

      // The account has its owner now: a second attach is refused, in the form.
      await goTo(owner.page, 'attach');
      await owner.page.locator('#attach-email').fill(uniqueAddress('second'));
      await owner.page.click('#attach-form button[type=submit]');
      t.regex(await waitForText(owner.page, '#attach-form [role=alert]', /./), /has an owner already/);
    } finally {
      await owner.close();
    }

    // Someone new to the service: the link asks for a password (and a name), which signs them in.
    const another = await newAccount(20, 'Second Operator Ltd');
    const newcomer = uniqueAddress('newcomer');
    const since = new Date(Date.now() - 1000);
    const invited = await request('POST', '/api/v1/account/invitations', {
      token: another.ownerToken,
      body: { email: newcomer, role: 'owner' },
    });
    t.is(invited.status, 201);
    const link = linkTo((await waitForMail(newcomer, { subject: /invited/, since })).links, 'invitation');
    const { page, problems, close } = await open('/dashboard/sign-in');
    try {
      await page.goto(link, { waitUntil: 'networkidle0' });
      await waitForView(page, 'invitation');
      t.is(
        await page.$eval('#invitation-sign-in', (a) => decodeURIComponent((a as HTMLAnchorElement).search)),
        `?next=/dashboard/invitation?token=${tokenFrom({ links: [link], subject: '' })}`,
      );
      await page.locator('#invitation-password').fill('short');
      await page.click('#invitation-new-form button[type=submit]');
      t.regex(await waitForText(page, '#invitation-password-error', /./), /^Password must be at least 15 characters/);
      await page.locator('#invitation-password').fill(goodPassword());
      await page.locator('#invitation-name').fill('New Comer');
      await page.click('#invitation-new-form button[type=submit]');
      await waitForView(page, 'overview');
      t.is(await textOf(page, '#person-name'), `New Comer (${newcomer})`);
      t.regex(await textOf(page, '#account-name'), /Signed in to Second Operator Ltd/);
      t.is(await waitForText(page, '#balance', /credits/), '20 credits');
      t.deepEqual(problems, []);
    } finally {
      await close();
    }
  },
);
