//! An account that requires its members to sign in through an identity provider: only the owner
//! sets it, from a session signed in through that provider; setting it ends the members' other
//! sessions on the account at once; a password sign-in of a member is then refused with a clear
//! message for that account only (their own other accounts still take it), and switching a
//! password session to it is refused; a sign-in through the provider reaches it.
import test from 'ava';
import { isProblem, type UncheckedJson } from '../helpers/api.js';
import { oidcSignIn, provider } from '../helpers/oidc.js';
import { client, signIn, signUp } from '../helpers/people.js';
import { invite, teamAccount } from '../helpers/team.js';
import { tokenFrom, uniqueAddress, waitForMail } from '../helpers/mailbox.js';

test('a required provider: set by the owner through it, other sessions ended, password sign-ins refused for this account only', async (t) => {
  const c = client();
  const { account, members } = await teamAccount(c, ['owner', 'developer'], 'Acme');
  const { owner, developer } = members as Required<typeof members>;
  // A person with an account of their own, who is also a developer of Acme.
  const both = await signUp(c);
  const since = new Date(Date.now() - 1000);
  await c.request('POST', '/api/v1/account/invitations', { token: account.ownerToken, body: { email: both.email, role: 'developer' } });
  const joined = await c.request('POST', '/api/v1/auth/invitations/accept', {
    cookie: both.cookie,
    body: { token: tokenFrom(await waitForMail(both.email, { subject: /invited/, since })) },
  });
  t.is(joined.body.account.id, account.id);

  const policy = { requiredProvider: provider().id };
  t.true(
    isProblem(
      await c.request('PUT', '/api/v1/account/sign-in-policy', { cookie: developer!.cookie, body: policy }),
      403,
      'forbidden_for_role',
    ),
  );
  const fromPassword = await c.request('PUT', '/api/v1/account/sign-in-policy', { cookie: owner!.cookie, body: policy });
  t.true(isProblem(fromPassword, 403, 'provider_required'), 'the owner would lose the account: sign in through it first');
  t.true(
    isProblem(
      await c.request('PUT', '/api/v1/account/sign-in-policy', { token: account.ownerToken, body: { requiredProvider: 'nobody' } }),
      400,
      'validation_failed',
    ),
  );

  const ownerSso = await oidcSignIn(c, owner!.email);
  t.truthy(ownerSso.cookie);
  const set = await c.request('PUT', '/api/v1/account/sign-in-policy', { cookie: ownerSso.cookie, body: policy });
  t.is(set.status, 200, JSON.stringify(set.body));
  t.like(set.body, { requiredProvider: provider().id, providers: [{ id: provider().id, name: provider().name }] });
  t.is(set.body.sessionsEnded, 3, "the owner's, the developer's and the other person's password sessions on Acme");
  t.true(
    isProblem(await c.request('GET', '/api/v1/account', { cookie: developer!.cookie }), 401, 'unauthenticated'),
    "the developer's password session on Acme ended",
  );
  t.is((await c.request('GET', '/api/v1/account', { cookie: ownerSso.cookie })).status, 200);
  t.is((await c.request('GET', '/api/v1/account/sign-in-policy', { cookie: ownerSso.cookie })).body.requiredProvider, provider().id);

  // A password sign-in of a member whose only account requires the provider: refused, saying which.
  const refused = await signIn(c, developer!.email, developer!.password);
  t.true(isProblem(refused.res, 403, 'provider_required'));
  t.like(refused.res.body, {
    provider: { id: provider().id, name: provider().name, signInPath: `/api/v1/auth/oidc/${provider().id}/start` },
  });
  t.regex(refused.res.body.detail, /Acme.*Test SSO/);
  t.is(refused.cookie, undefined);
  // Through the provider, the same member is in.
  const devSso = await oidcSignIn(c, developer!.email);
  t.is((await c.request('GET', '/api/v1/auth/session', { cookie: devSso.cookie })).body.account.id, account.id);

  // A person with another account: the password reaches their own, not Acme.
  const own = await signIn(c, both.email, both.password);
  t.is(own.res.status, 200);
  t.is(own.res.body.account.id, both.accountId);
  t.like(
    own.res.body.accounts.find((a: UncheckedJson) => a.id === account.id),
    { requiredProvider: provider().id },
  );
  t.true(
    isProblem(
      await c.request('PUT', '/api/v1/auth/session', { cookie: own.cookie, body: { accountId: account.id } }),
      403,
      'provider_required',
    ),
  );
  const bothSso = await oidcSignIn(c, both.email, { cookie: own.cookie });
  const switched = await c.request('PUT', '/api/v1/auth/session', { cookie: bothSso.cookie, body: { accountId: account.id } });
  t.is(switched.status, 200);
  t.is(switched.body.account.role, 'developer');

  // A new member invited now joins, and is told to sign in through the provider.
  const email = uniqueAddress('late');
  const late = await c.request('POST', '/api/v1/auth/invitations/accept', {
    body: { token: await invite(c, account.ownerToken, email, 'viewer'), password: 'a long enough password for this one' },
  });
  t.true(isProblem(late, 403, 'provider_required'));
  t.is((await oidcSignIn(c, email)).callback.status, 303, 'joined: the provider signs them in');

  // The owner token is no sign-in: it lifts the requirement.
  const lifted = await c.request('PUT', '/api/v1/account/sign-in-policy', { token: account.ownerToken, body: { requiredProvider: null } });
  t.like(lifted.body, { requiredProvider: null, sessionsEnded: 0 });
  t.is((await signIn(c, developer!.email, developer!.password)).res.status, 200);
  const [entry] = (await c.request('GET', '/api/v1/account/audit-log?action=account.sign_in_policy_changed', { token: account.ownerToken }))
    .body.items;
  t.like(entry, { actor: { type: 'owner' }, changes: { requiredProvider: [provider().id, null] } });
});
