//! Signing in through an identity provider, against a real one (oidc-provider, the fixture the
//! stack trusts through OIDC_PROVIDERS): the authorization code flow with PKCE, a state and a
//! nonce. A verified address of a person here signs them in; a wrong state or nonce is 400
//! `oidc_failed`; an address the provider has not verified, or one no one here has, signs no one
//! in and joins nothing.
import test from 'ava';
import { isProblem } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { uniqueAddress } from '../helpers/mailbox.js';
import { oidcSignIn, provider } from '../helpers/oidc.js';
import { client, signUp } from '../helpers/people.js';

test('the providers are listed; a verified address of a person here signs them in with method oidc, through PKCE, a state and a nonce', async (t) => {
  const c = client();
  const listed = await c.request('GET', '/api/v1/auth/oidc');
  t.deepEqual(listed.body, [{ id: provider().id, name: provider().name, signInPath: `/api/v1/auth/oidc/${provider().id}/start` }]);
  t.true(isProblem(await c.request('GET', '/api/v1/auth/oidc/nobody/start'), 404, 'not_found'));

  const person = await signUp(c);
  const signedIn = await oidcSignIn(c, person.email);
  t.is(signedIn.start.status, 303);
  t.true(new URL(signedIn.start.headers.get('location')!).href.startsWith(provider().issuer));
  const authorize = new URL(signedIn.start.headers.get('location')!).searchParams;
  t.is(authorize.get('code_challenge_method'), 'S256');
  t.truthy(authorize.get('state') && authorize.get('nonce') && authorize.get('code_challenge'));
  t.is(signedIn.callback.status, 303, JSON.stringify(signedIn.callback.body));
  t.is(signedIn.callback.headers.get('location'), '/dashboard');
  t.truthy(signedIn.cookie);
  const session = await c.request('GET', '/api/v1/auth/session', { cookie: signedIn.cookie });
  t.like(session.body, {
    user: { id: person.userId, email: person.email },
    account: { id: person.accountId, role: 'owner' },
    session: { method: 'oidc', provider: provider().id },
  });
  const [entry] = (await c.request('GET', '/api/v1/account/audit-log?action=user.signed_in', { cookie: signedIn.cookie })).body.items;
  t.like(entry, { actor: { type: 'user', userId: person.userId }, changes: { method: [null, 'oidc'], provider: [null, provider().id] } });
});

test('a wrong state, a callback in another browser and a wrong nonce are 400 oidc_failed; nothing is signed in', async (t) => {
  const c = client();
  const person = await signUp(c);
  const wrongState = await oidcSignIn(c, person.email, {
    tamperCallback: (url) => url.searchParams.set('state', 'a-state-nobody-started'),
  });
  t.true(isProblem(wrongState.callback, 400, 'oidc_failed'));
  t.is(wrongState.callback.body.reason, 'state');
  t.is(wrongState.cookie, undefined);

  const otherBrowser = await oidcSignIn(c, person.email, { dropBinding: true });
  t.true(isProblem(otherBrowser.callback, 400, 'oidc_failed'));
  t.is(otherBrowser.callback.body.reason, 'state');

  const wrongNonce = await oidcSignIn(c, person.email, {
    tamperAuthorization: (url) => url.searchParams.set('nonce', 'a-nonce-of-another-sign-in'),
  });
  t.true(isProblem(wrongNonce.callback, 400, 'oidc_failed'));
  t.is(wrongNonce.callback.body.reason, 'nonce');
  t.is(wrongNonce.cookie, undefined);

  // A callback that went through is spent: the same URL again is refused.
  let callbackUrl = '';
  const once = await oidcSignIn(c, person.email, { tamperCallback: (url) => void (callbackUrl = url.pathname + url.search) });
  t.is(once.callback.status, 303);
  const again = await c.request('GET', callbackUrl, { cookie: once.start.setCookie.map((s) => s.split(';')[0]).join('; ') });
  t.true(isProblem(again, 400, 'oidc_failed'), 'used once');

  // A browser's navigation is sent back to the sign-in page, told the code alone; the cookie is still spent.
  const html = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  const inBrowser = await c.request('GET', callbackUrl, {
    cookie: once.start.setCookie.map((s) => s.split(';')[0]).join('; '),
    headers: { accept: html },
  });
  t.is(inBrowser.status, 303);
  t.is(inBrowser.headers.get('location'), '/dashboard/sign-in?problem=oidc_failed');
  t.false(
    inBrowser.setCookie.some((s) => s.startsWith('ut_session=') && !/Max-Age=0/.test(s)),
    'no session',
  );
  const unknown = await c.request('GET', '/api/v1/auth/oidc/nobody/start', { headers: { accept: html } });
  t.is(unknown.headers.get('location'), '/dashboard/sign-in?problem=not_found');
  t.true(isProblem(await c.request('GET', '/api/v1/auth/oidc/nobody/start'), 404, 'not_found'), 'a script gets the problem');
});

test('an address the provider has not verified, or one no one here has, signs no one in and joins nothing', async (t) => {
  const c = client();
  const person = await signUp(c);
  const unverified = await oidcSignIn(c, `unverified:${person.email}`);
  t.true(isProblem(unverified.callback, 403, 'address_not_verified'));
  t.is(unverified.cookie, undefined);

  const stranger = uniqueAddress('stranger');
  const unknown = await oidcSignIn(c, stranger);
  t.true(isProblem(unknown.callback, 403, 'forbidden'));
  t.is(unknown.cookie, undefined);
  const made = await withServiceDb(async (db) => ({
    users: await db.collection('users').countDocuments({ email: stranger }),
    memberships: await db.collection('memberships').countDocuments({ userId: person.userId }),
  }));
  t.deepEqual(made, { users: 0, memberships: 1 });
});
