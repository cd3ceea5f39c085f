//! The Security page of a person, in Chromium at the service's own origin: a passkey added through
//! the browser's virtual authenticator (DevTools WebAuthn domain), named, renamed, used to sign in
//! with the sign-in page's passkey button (no address typed), and removed after the person
//! confirms it is them with it; the sessions listed with "this device", another one ended, then
//! all others; and a password change whose sign-in is over 10 minutes old, which the dialog
//! confirms with the password before the change goes through.
import test from 'ava';
import type { Page } from 'puppeteer-core';
import { withServiceDb } from '../helpers/db.js';
import { client, goodPassword, signIn as apiSignIn, signUp, type SignedUpPerson } from '../helpers/people.js';
import { browserForFile } from './browser-for-file.js';
import { button, focused, lastAnnouncement, noteShot, openSignedIn, signInWithPassword, textOf, waitForText, waitForView } from './page.js';

const browser = browserForFile();

/** A virtual authenticator on `page` that holds discoverable credentials and verifies its user at once. */
async function addAuthenticator(page: Page) {
  const cdp = await page.createCDPSession();
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  /** The passkeys the authenticator holds. */
  return { credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials };
}

/** The session's last sign-in made 11 minutes old: security changes then need a new one. */
const ageSignIn = (person: SignedUpPerson) =>
  withServiceDb((db) =>
    db
      .collection('sessions')
      .updateMany({ userId: person.userId, endedAt: null }, { $set: { authenticatedAt: new Date(Date.now() - 11 * 60_000) } }),
  );

const rowsOf = (page: Page, selector: string) =>
  page.$$eval(`${selector} tbody tr`, (trs) => trs.map((tr) => (tr as HTMLElement).innerText.replace(/\s+/g, ' ').trim()));

test.serial('a passkey added on the Security page signs in without an address; removing it asks to confirm it is you', async (t) => {
  const person = await signUp(client(), { name: 'Passkey person' });
  const { page, problems, close } = await openSignedIn(browser(), person, 'security');
  try {
    const authenticator = await addAuthenticator(page);
    t.regex(await textOf(page, '#passkeys-body'), /No passkeys yet/);
    await page.locator('#passkey-name').fill('Work laptop');
    await page.click('#passkey-form button[type=submit]');
    await waitForText(page, '#passkeys-body', /Work laptop/);
    await lastAnnouncement(page, /Passkey “Work laptop” added/);
    const held = await authenticator.credentials();
    t.is(held.length, 1);
    t.true(held[0]!.isResidentCredential, 'a discoverable credential: it signs in without an address');

    // Renamed in place; the list says when it was added and that it was not used yet.
    await (await button(page, '#passkeys-body', 'Rename')).click();
    t.regex((await focused(page)).id, /^rename-/);
    await page.keyboard.down('Control');
    await page.keyboard.press('a');
    await page.keyboard.up('Control');
    await page.keyboard.type('Laptop');
    await page.keyboard.press('Enter');
    await waitForText(page, '#passkeys-body', /Laptop/);
    t.regex((await rowsOf(page, '#passkeys-body'))[0]!, /^Laptop .*\d{4}.* Not yet/);
    t.is(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Rename passkey Laptop');

    // The page with a passkey and two sessions (the one of sign-up and this one).
    await waitForText(page, '#sessions-body', /This device/);
    t.is((await rowsOf(page, '#sessions-body')).length, 2);
    await noteShot(page, 'shot-security');

    // Signed out, the sign-in page's passkey button signs in: no address typed.
    await page.click('#sign-out');
    await waitForView(page, 'sign-in');
    await page.click('#passkey-sign-in');
    // Back where sign-in was asked for: the Security page.
    await page.waitForSelector('#views > [data-view="security"]:not([hidden]), #passkey-error:not([hidden])');
    t.is(
      await page.$eval('#passkey-error', (el) => (el as HTMLElement).hidden || (el as HTMLElement).innerText).catch(() => true),
      true,
      'no problem with the passkey',
    );
    await waitForView(page, 'security');
    t.regex(await textOf(page, '#person-name'), /Passkey person/);
    await waitForText(page, '#sessions-body', /with a passkey/);
    t.notRegex((await rowsOf(page, '#passkeys-body'))[0]!, /Not yet/, 'its last use is shown');

    // Over 10 minutes after the sign-in, removing asks to confirm it is you; the passkey does.
    await ageSignIn(person);
    await (await button(page, '#passkeys-body', 'Remove')).click();
    await page.waitForSelector('#confirm-dialog[open]');
    await page.click('#confirm-ok');
    await page.waitForSelector('#reauth-dialog[open]');
    t.is((await focused(page)).id, 'reauth-password');
    await page.click('#reauth-passkey');
    await waitForText(page, '#passkeys-body', /No passkeys yet/);
    await lastAnnouncement(page, /Passkey “Laptop” removed/);
    t.false(await page.$eval('#reauth-dialog', (d) => (d as HTMLDialogElement).open));

    // Gone: the passkey no longer signs anyone in, and the page says so.
    await page.click('#sign-out');
    await waitForView(page, 'sign-in');
    await page.click('#passkey-sign-in');
    t.regex(await waitForText(page, '#passkey-error', /./), /not registered here/);
    t.true(await page.$eval('#account-bar', (el) => (el as HTMLElement).hidden));
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial('the sessions list shows this device; another session ends from it, then all the others', async (t) => {
  const person = await signUp(client());
  const elsewhere = await apiSignIn(client(), person.email, person.password);
  const { page, problems, close } = await openSignedIn(browser(), person, 'security');
  try {
    await waitForText(page, '#sessions-body', /This device/);
    const rows = await rowsOf(page, '#sessions-body');
    t.is(rows.length, 3);
    t.regex(rows[0]!, /^Chrome on Linux This device/);
    t.true(
      rows.slice(1).every((r) => /Unknown device/.test(r)),
      'the sessions made outside a browser',
    );
    t.true(rows.some((r) => r.includes('by confirming the address')));

    // End the one made at sign-up: it is refused at once; the list follows.
    const target = await page.$eval('#sessions-body tbody tr:last-child', (tr) => (tr as HTMLElement).dataset.sessionId);
    await page.click('#sessions-body tbody tr:last-child button');
    await page.waitForFunction((id) => !document.querySelector(`#sessions-body tr[data-session-id="${id}"]`), {}, target);
    await lastAnnouncement(page, /has ended/);
    t.is((await rowsOf(page, '#sessions-body')).length, 2);
    t.is((await client().request('GET', '/api/v1/auth/session', { cookie: person.cookie })).status, 401);
    t.is((await client().request('GET', '/api/v1/auth/session', { cookie: elsewhere.cookie! })).status, 200);

    // All the others, after a confirmation: only this device is left, and it stays signed in.
    await page.click('#end-other-sessions');
    await page.waitForSelector('#confirm-dialog[open]');
    await page.click('#confirm-ok');
    await lastAnnouncement(page, /One other session has ended/);
    t.deepEqual((await rowsOf(page, '#sessions-body')).length, 1);
    t.true(await page.$eval('#end-other-sessions', (b) => (b as HTMLElement).hidden));
    t.is((await client().request('GET', '/api/v1/auth/session', { cookie: elsewhere.cookie! })).status, 401);
    t.false(await page.$eval('#account-bar', (el) => (el as HTMLElement).hidden));
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial('a password change over 10 minutes after sign-in: the dialog confirms it is you, then the change goes through', async (t) => {
  const person = await signUp(client());
  const { page, problems, close } = await openSignedIn(browser(), person, 'security');
  try {
    t.deepEqual(
      await page.$$eval('#password-form input:not([type=checkbox])', (inputs) =>
        inputs.map((i) => `${i.getAttribute('name')}:${i.getAttribute('autocomplete')}`),
      ),
      ['username:username', 'currentPassword:current-password', 'newPassword:new-password'],
    );
    await ageSignIn(person);
    const fresh = goodPassword();
    await page.locator('#current-password').fill(person.password);
    await page.locator('#new-password').fill(fresh);
    await page.click('#password-form button[type=submit]');
    await page.waitForSelector('#reauth-dialog[open]');
    t.regex(await textOf(page, '#reauth-body'), new RegExp(`sign-in within the last 10 minutes.*${person.email.replace(/[.+]/g, '\\$&')}`));

    // A wrong password is said in the dialog, which stays open; the person stays signed in.
    await page.locator('#reauth-password').fill('certainly not it');
    await page.click('#reauth-form button[type=submit]');
    t.regex(await waitForText(page, '#reauth-form [role=alert]', /./), /not right/);
    t.is((await focused(page)).id, 'reauth-password');
    t.false(await page.$eval('#account-bar', (el) => (el as HTMLElement).hidden));

    await page.locator('#reauth-password').fill(person.password);
    await page.click('#reauth-form button[type=submit]');
    t.regex(await waitForText(page, '#password-status', /./), /^Password changed\./);
    t.false(await page.$eval('#reauth-dialog', (d) => (d as HTMLDialogElement).open));
    // The confirmation was a new sign-in of this session; the change ended the one of sign-up.
    await page.waitForFunction(() => document.querySelectorAll('#sessions-body tbody tr').length === 1);
    t.is((await client().request('GET', '/api/v1/auth/session', { cookie: person.cookie })).status, 401);

    await page.click('#sign-out');
    await waitForView(page, 'sign-in');
    await signInWithPassword(page, person.email, fresh);
    await waitForView(page, 'security');
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});
