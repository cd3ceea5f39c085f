//! Company sign-in on the dashboard in Chromium at the service's own origin, through the stack's
//! OpenID provider: its button on the sign-in page, a person signing in through it, the owner
//! requiring it on the Team page (the service then refusing a password), and a stranger sent back
//! saying why.
import test from 'ava';
import type { Page } from 'puppeteer-core';
import { isProblem } from '../helpers/api.js';
import { uniqueAddress } from '../helpers/mailbox.js';
import { client, serviceOrigin, signUp } from '../helpers/people.js';
import { provider } from '../helpers/oidc.js';
import { browserForFile } from './browser-for-file.js';
import { axeViolations, goTo, lastAnnouncement, lineOf, noteShot, openDashboard, waitForText, waitForView } from './page.js';

const c = client();
const browser = browserForFile();

/** From the sign-in page through the provider's own form, typing `login` there, until the service has sent the browser somewhere of its own again. */
async function signInThroughProvider(page: Page, login: string) {
  const button = await page.waitForSelector(`#provider-sign-in:not([hidden]) a[data-provider="${provider().id}"]`, { visible: true });
  await Promise.all([page.waitForNavigation(), button!.click()]);
  if (new URL(page.url()).origin !== new URL(provider().issuer).origin)
    throw new Error(`the button led to ${page.url()}, not the provider`);
  await page.locator('input[name=login]').fill(login);
  await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle0' }), page.click('button[type=submit]')]);
}

test.serial(
  'company sign-in: the sign-in page offers the provider, a person signs in through it, the owner requires it on the Team page; an address nobody has comes back saying so',
  async (t) => {
    const person = await signUp(c, { name: 'Sam Single' });
    const { page, problems, close } = await openDashboard(browser(), { origin: serviceOrigin(), path: '/dashboard/sign-in' });
    try {
      await waitForView(page, 'sign-in');
      t.is(await lineOf(page, `#provider-sign-in a[data-provider="${provider().id}"]`), `Sign in with ${provider().name}`);
      t.deepEqual(await axeViolations(page), [], 'the sign-in page with its provider button');

      await signInThroughProvider(page, person.email);
      await page.waitForSelector('#account-bar:not([hidden])');
      t.is(new URL(page.url()).pathname, '/dashboard', 'on to the overview');
      await goTo(page, 'team');
      // Only the owner sees the section; the select offers any way or the provider.
      await page.waitForSelector('#sign-in-policy:not([hidden]) #required-provider');
      t.deepEqual(await page.$$eval('#required-provider option', (os) => os.map((o) => [(o as HTMLOptionElement).value, o.textContent])), [
        ['', 'Any way: password, passkey or a provider'],
        [provider().id, `Only through ${provider().name}`],
      ]);
      await page.select('#required-provider', provider().id);
      await page.click('#sign-in-policy-form button[type=submit]');
      t.regex(await waitForText(page, '#sign-in-policy-status', /./), new RegExp(`Members now sign in through ${provider().name}\\.`));
      await lastAnnouncement(page, /Members now sign in through/);
      await noteShot(page, 'shot-team-sign-in-policy');
      // The service holds it: a password sign-in of the only member is refused, naming the provider.
      const refused = await c.request('POST', '/api/v1/auth/signin', { body: { email: person.email, password: person.password } });
      t.true(isProblem(refused, 403, 'provider_required'));
      t.is(
        (await c.request('GET', '/api/v1/account/sign-in-policy', { cookie: person.cookie })).status,
        401,
        'the password session ended when the policy was set',
      );

      // Lifting it from the page: any way again.
      await page.select('#required-provider', '');
      await page.click('#sign-in-policy-form button[type=submit]');
      t.regex(await waitForText(page, '#sign-in-policy-status', /any way/), /Members sign in any way again\./);
      t.deepEqual(problems, []);
    } finally {
      await close();
    }

    // Someone the provider knows but nobody here is: back on the sign-in page with why, signed in nowhere.
    const stranger = await openDashboard(browser(), { origin: serviceOrigin(), path: '/dashboard/sign-in' });
    try {
      await waitForView(stranger.page, 'sign-in');
      await signInThroughProvider(stranger.page, uniqueAddress('stranger'));
      await waitForView(stranger.page, 'sign-in');
      const url = new URL(stranger.page.url());
      t.is(url.pathname + url.search, '/dashboard/sign-in?problem=forbidden');
      t.regex(await lineOf(stranger.page, '#sign-in-notice:not([hidden])'), /No account here has the address your identity provider gave/);
      t.true(await stranger.page.$eval('#account-bar', (el) => (el as HTMLElement).hidden));
      t.deepEqual(stranger.problems, []);
    } finally {
      await stranger.close();
    }
  },
);
