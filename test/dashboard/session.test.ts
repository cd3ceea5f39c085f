//! Signing in and out of the dashboard with an owner token (an account an operator opened): wrong
//! tokens are explained, the token lives only in the page's memory (never sessionStorage,
//! localStorage, a cookie or the URL: a reload forgets it), sign-out forgets it, and a token the
//! service stops accepting returns the page to sign-in with the service's reason. A person's
//! sign-in is in people.test.ts.
import test from 'ava';
import { newAccount } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { browserForFile } from './browser-for-file.js';
import { goTo, openDashboard, screenshot, signIn, submitToken, textOf, waitForText, waitForView } from './page.js';

const browser = browserForFile();

test.serial('a key or an unknown token is refused with the reason, then the owner token signs in', async (t) => {
  const account = await newAccount(40, 'Sign-in Ltd');
  const { page, problems, close } = await openDashboard(browser());
  try {
    t.is(await page.title(), 'Sign in · Utility Tools');
    await screenshot(page, 'sign-in');

    await submitToken(page, account.apiKey);
    t.regex(await waitForText(page, '#token-error', /./), /API key/);
    t.is(await page.$eval('#token', (el) => el.getAttribute('aria-invalid')), 'true');

    // Well formed but unknown: the service's 401 detail is shown.
    await submitToken(page, `uto_${'x'.repeat(40)}`);
    t.regex(await waitForText(page, '#token-error', /unknown/), /The credential is unknown\./);
    await screenshot(page, 'sign-in-error');

    await signIn(page, account.ownerToken);
    t.regex(await textOf(page, '#account-name'), /Sign-in Ltd/);
    t.regex(await textOf(page, '#balance'), /^40 credits$/);
    t.false(
      await page.$$eval('input', (inputs, token) => inputs.some((i) => (i as HTMLInputElement).value === token), account.ownerToken),
      'no field keeps the token',
    );
    // A new account: no calls, no endpoints; the operator's first key is listed.
    await goTo(page, 'usage');
    t.regex(await textOf(page, '#usage-body'), /No credits used in the last 14 days/);
    t.regex(await textOf(page, '#usage-body'), /No calls yet/);
    await goTo(page, 'webhooks');
    t.regex(await textOf(page, '#webhooks-body'), /No webhook endpoints yet/);
    await goTo(page, 'keys');
    t.regex(await textOf(page, '#keys-body'), new RegExp(account.apiKey.slice(0, 12)));
    await screenshot(page, 'overview-empty');
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial('the token is kept only in memory: not in any storage, cookie or the URL; a reload and sign-out forget it', async (t) => {
  const account = await newAccount(10);
  const { page, context, problems, close } = await openDashboard(browser());
  try {
    await signIn(page, account.ownerToken);
    const stored = await page.evaluate(() => ({
      local: Object.keys(localStorage).length,
      cookie: document.cookie,
      session: Object.keys(sessionStorage).length,
      url: location.href,
    }));
    t.deepEqual(stored, { local: 0, cookie: '', session: 0, url: stored.url });
    t.deepEqual(await context.cookies(), []);
    t.false(stored.url.includes(account.ownerToken));
    // Owner tokens are for scripts: the overview points to a sign-in of one's own.
    t.regex(await textOf(page, '#attach-note'), /signed in with the owner token/);
    t.regex(await textOf(page, '#person-name'), /Owner token/);

    // A reload forgets it: sign-in again, and it comes back to the view.
    await page.reload({ waitUntil: 'networkidle0' });
    await waitForView(page, 'sign-in');
    t.is(new URL(page.url()).pathname, '/dashboard/sign-in');
    await signIn(page, account.ownerToken);
    t.regex(await textOf(page, '#balance'), /10 credits/);

    await page.click('#sign-out');
    await waitForView(page, 'sign-in');
    t.regex(await textOf(page, '#sign-in-notice'), /signed out/);
    t.is(await page.evaluate(() => sessionStorage.length + localStorage.length), 0);
    t.deepEqual(
      await page.$$eval('#views > *', (views) => views.map((v) => (v as HTMLElement).dataset.view)),
      ['sign-in'],
      'nothing of the account stays on the page',
    );
    t.is(await page.$('#balance'), null);
    t.is(await page.evaluate(() => document.activeElement?.id), 'sign-in-title');
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial('when the service stops accepting the token, the next request returns the page to sign-in', async (t) => {
  const account = await newAccount(10);
  const { page, problems, close } = await openDashboard(browser());
  try {
    await signIn(page, account.ownerToken);
    // The owner token is revoked behind the page's back (there is no API for it).
    await withServiceDb((db) =>
      db.collection('credentials').updateOne({ accountId: account.id, kind: 'owner_token' }, { $set: { revokedAt: new Date() } }),
    );
    await new Promise((r) => setTimeout(r, 700)); // the API's credential cache lives 500 ms
    await page.click('#refresh');
    await waitForView(page, 'sign-in');
    t.regex(await textOf(page, '#sign-in-notice'), /Your session has ended: The credential has been revoked\. Sign in again\./);
    t.is(await page.evaluate(() => document.activeElement?.id), 'sign-in-title');
    await screenshot(page, 'session-ended');
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});
