//! Passkeys in real Chromium through its virtual authenticator (DevTools WebAuthn domain): a
//! signed-in person adds one, names it, signs in with it without typing an address, and removes
//! it; adding needs a recent sign-in. The browser side is SimpleWebAuthn's own browser bundle.
import test from 'ava';
import { createRequire } from 'node:module';
import type { Page } from 'puppeteer-core';
import { launchBrowser } from '../dashboard/page.js';
import { client, serviceOrigin, signUp } from '../helpers/people.js';
import { withServiceDb } from '../helpers/db.js';
import type { UncheckedJson } from '../helpers/api.js';

const require = createRequire(import.meta.url);
/** The page's global with the SimpleWebAuthn bundle the dashboard serves. */
type PageGlobal = typeof globalThis & { SimpleWebAuthnBrowser: typeof import('@simplewebauthn/browser') };
const BROWSER_BUNDLE = require.resolve('@simplewebauthn/browser').replace(/script[\\/]index\.js$/, 'dist/bundle/index.umd.min.js');

/** A page of the service's origin with an authenticator that holds discoverable credentials and verifies its user. */
async function pageWithAuthenticator(cookie: string) {
  const browser = await launchBrowser();
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const origin = serviceOrigin();
  const [name, value] = cookie.split('=') as [string, string];
  await page.setCookie({ name, value, url: origin, httpOnly: true, sameSite: 'Lax' });
  await page.goto(`${origin}/healthz`);
  await page.addScriptTag({ path: BROWSER_BUNDLE });
  const cdp = await page.createCDPSession();
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return { browser, page, cdp, authenticatorId };
}

/** `fetch` from the page: same origin, the browser's cookie, JSON both ways. */
const call = (page: Page, method: string, path: string, body?: unknown) =>
  page.evaluate(
    async (m, p, b) => {
      const res = await fetch(p, {
        method: m,
        headers: b === undefined ? {} : { 'content-type': 'application/json' },
        body: b === undefined ? undefined : JSON.stringify(b),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    method,
    path,
    body,
  );

const addPasskey = (page: Page, name: string) =>
  page.evaluate(async (n) => {
    const options = await (await fetch('/api/v1/auth/passkeys/options', { method: 'POST' })).json();
    const response = await (globalThis as PageGlobal).SimpleWebAuthnBrowser.startRegistration({ optionsJSON: options });
    const res = await fetch('/api/v1/auth/passkeys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response, name: n }),
    });
    return { status: res.status, body: await res.json() };
  }, name);

const passkeySignIn = (page: Page) =>
  page.evaluate(async () => {
    const options = await (await fetch('/api/v1/auth/passkey-signin/options', { method: 'POST' })).json();
    const response = await (globalThis as PageGlobal).SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: options });
    const res = await fetch('/api/v1/auth/passkey-signin', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response }),
    });
    return { status: res.status, body: await res.json() };
  });

test('a person adds a passkey, renames it, signs in with it without an address, and removes it', async (t) => {
  const person = await signUp(client());
  const { browser, page } = await pageWithAuthenticator(person.cookie);
  t.teardown(() => browser.close());

  const added = await addPasskey(page, 'Work laptop');
  t.is(added.status, 201, JSON.stringify(added.body));
  t.like(added.body, { name: 'Work laptop', backedUp: false });
  const renamed = await call(page, 'PATCH', `/api/v1/auth/passkeys/${encodeURIComponent(added.body.id)}`, { name: 'Laptop' });
  t.is(renamed.body.name, 'Laptop');
  t.deepEqual(
    (await call(page, 'GET', '/api/v1/auth/passkeys')).body.map((p: UncheckedJson) => p.name),
    ['Laptop'],
  );

  t.is((await call(page, 'POST', '/api/v1/auth/signout')).status, 204);
  t.is((await call(page, 'GET', '/api/v1/auth/session')).status, 401);
  const signedIn = await passkeySignIn(page);
  t.is(signedIn.status, 200, JSON.stringify(signedIn.body));
  t.like(signedIn.body, {
    user: { id: person.userId, email: person.email },
    account: { id: person.accountId },
    session: { method: 'passkey' },
  });
  t.is((await call(page, 'GET', '/api/v1/auth/session')).status, 200, 'the cookie is set');

  const log = await call(page, 'GET', '/api/v1/account/audit-log');
  const actions = log.body.items.map((e: UncheckedJson) => e.action);
  t.true(actions.includes('user.passkey_added'));
  t.true(log.body.items.some((e: UncheckedJson) => e.action === 'user.signed_in' && e.changes.method[1] === 'passkey'));

  t.is((await call(page, 'DELETE', `/api/v1/auth/passkeys/${encodeURIComponent(added.body.id)}`)).status, 204);
  t.deepEqual((await call(page, 'GET', '/api/v1/auth/passkeys')).body, []);
  await call(page, 'POST', '/api/v1/auth/signout');
  const refused = await passkeySignIn(page);
  t.is(refused.status, 401, 'a removed passkey signs nobody in');
  t.is(refused.body.code, 'invalid_credentials');
});

test('adding or removing a passkey needs a sign-in within 10 minutes; a challenge works once', async (t) => {
  const person = await signUp(client());
  const { browser, page } = await pageWithAuthenticator(person.cookie);
  t.teardown(() => browser.close());
  const added = await addPasskey(page, 'Phone');
  t.is(added.status, 201);

  await withServiceDb((db) =>
    db.collection('sessions').updateMany({ userId: person.userId }, { $set: { authenticatedAt: new Date(Date.now() - 11 * 60_000) } }),
  );
  const stale = await call(page, 'POST', '/api/v1/auth/passkeys/options');
  t.is(stale.status, 403);
  t.is(stale.body.code, 'reauthentication_required');
  t.is((await call(page, 'DELETE', `/api/v1/auth/passkeys/${encodeURIComponent(added.body.id)}`)).body.code, 'reauthentication_required');

  // Signing in again with the passkey re-authenticates (a new session); then the change goes through.
  t.is((await passkeySignIn(page)).status, 200);
  const replay = await page.evaluate(async () => {
    const options = await (await fetch('/api/v1/auth/passkey-signin/options', { method: 'POST' })).json();
    const response = await (globalThis as PageGlobal).SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: options });
    // No named function in here: the test's transpiler would name it with a helper the page lacks.
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++)
      statuses.push(
        (
          await fetch('/api/v1/auth/passkey-signin', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ response }),
          })
        ).status,
      );
    return statuses;
  });
  t.deepEqual(replay, [200, 400], 'the same answer again is refused: its challenge was used');
  t.is((await call(page, 'DELETE', `/api/v1/auth/passkeys/${encodeURIComponent(added.body.id)}`)).status, 204);
});
