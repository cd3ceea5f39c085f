//! Attaching a person to an account the operator opened: its owner token invites an address as
//! owner; accepting with a new password makes the person and signs them in to that account.
import test from 'ava';
import { isProblem, newAccount } from '../helpers/api.js';
import { tokenFrom, uniqueAddress, waitForMail } from '../helpers/mailbox.js';
import { client, goodPassword, signIn, signUp } from '../helpers/people.js';

test("an operator-opened account's owner invites themselves; accepting makes the person, joins and signs in", async (t) => {
  const c = client();
  const account = await newAccount(40, 'Acme');
  const email = uniqueAddress('owner');
  const since = new Date(Date.now() - 1000);
  const invited = await c.request('POST', '/api/v1/account/invitations', { token: account.ownerToken, body: { email, role: 'owner' } });
  t.is(invited.status, 201);
  t.like(invited.body, { email, role: 'owner' });
  const mail = await waitForMail(email, { subject: /invited to Acme/, since });
  const token = tokenFrom(mail);
  t.regex(mail.links.find((l) => l.includes('token='))!, /\/dashboard\/invitation\?token=/);

  const noPassword = await c.request('POST', '/api/v1/auth/invitations/accept', { body: { token } });
  t.is(noPassword.body.errors?.[0]?.field, '/password');
  const password = goodPassword();
  const accepted = await c.request('POST', '/api/v1/auth/invitations/accept', { body: { token, password, name: 'Owner' } });
  t.is(accepted.status, 200, JSON.stringify(accepted.body));
  t.like(accepted.body, {
    user: { email, name: 'Owner' },
    account: { id: account.id, role: 'owner', name: 'Acme' },
    session: { method: 'invitation' },
  });
  t.true(
    isProblem(await c.request('POST', '/api/v1/auth/invitations/accept', { body: { token, password } }), 400, 'invalid_token'),
    'used once',
  );

  const { cookie } = await signIn(c, email, password);
  t.is((await c.request('GET', '/api/v1/account', { cookie })).body.balance, 40, 'the account the operator opened, with its credits');
  t.is((await c.request('GET', '/api/v1/account', { token: account.ownerToken })).status, 200, 'the owner token keeps working');
  const joined = await c.request('GET', '/api/v1/account/audit-log?action=member.joined', { cookie });
  t.like(joined.body.items[0], { actor: { type: 'user' }, changes: { role: [null, 'owner'] } });

  const second = await c.request('POST', '/api/v1/account/invitations', {
    token: account.ownerToken,
    body: { email: uniqueAddress('other'), role: 'owner' },
  });
  t.true(isProblem(second, 409, 'already_exists'), 'exactly one owner');
});

test('an invitation for a known address asks its person to sign in first, then joins the account to their others', async (t) => {
  const c = client();
  const person = await signUp(c);
  const account = await newAccount(10, 'Second');
  const since = new Date(Date.now() - 1000);
  await c.request('POST', '/api/v1/account/invitations', { token: account.ownerToken, body: { email: person.email, role: 'owner' } });
  const token = tokenFrom(await waitForMail(person.email, { subject: /invited/, since }));
  t.true(
    isProblem(
      await c.request('POST', '/api/v1/auth/invitations/accept', { body: { token, password: goodPassword() } }),
      401,
      'unauthenticated',
    ),
  );
  const stranger = await signUp(c);
  t.true(
    isProblem(await c.request('POST', '/api/v1/auth/invitations/accept', { cookie: stranger.cookie, body: { token } }), 403, 'forbidden'),
    'another address may not take it',
  );
  const joined = await c.request('POST', '/api/v1/auth/invitations/accept', { cookie: person.cookie, body: { token } });
  t.is(joined.status, 200);
  t.is(joined.body.account.id, account.id);
  t.is(joined.body.accounts.length, 2);
  // Switching between the accounts without signing out.
  const back = await c.request('PUT', '/api/v1/auth/session', { cookie: person.cookie, body: { accountId: person.accountId } });
  t.is(back.body.account.id, person.accountId);
  t.is((await c.request('GET', '/api/v1/account', { cookie: person.cookie })).body.id, person.accountId);
  t.true(
    isProblem(
      await c.request('PUT', '/api/v1/auth/session', { cookie: person.cookie, body: { accountId: stranger.accountId } }),
      404,
      'not_found',
    ),
  );
});
