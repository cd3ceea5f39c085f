//! A person's secrets stay theirs: after a sign-up, a sign-in, a password change and a reset,
//! neither the passwords, nor the mailed tokens, nor the session's cookie value are in any log of
//! the stack or in the database, where only hashes and digests are kept.
import test from 'ava';
import { tokenFrom, waitForMail } from '../helpers/mailbox.js';
import { client, goodPassword, signIn, signUp } from '../helpers/people.js';
import { placesHolding } from '../helpers/secrets.js';

test('passwords, mailed tokens and session ids are in no log and, in the clear, nowhere in the database', async (t) => {
  const c = client();
  const person = await signUp(c);
  const { cookie } = await signIn(c, person.email, person.password);
  const secrets = [person.password, person.cookie.split('=')[1]!, cookie!.split('=')[1]!];
  const changed = goodPassword();
  t.is(
    (await c.request('POST', '/api/v1/auth/password', { cookie, body: { currentPassword: person.password, newPassword: changed } })).status,
    200,
  );
  const since = new Date(Date.now() - 1000);
  await c.request('POST', '/api/v1/auth/password-reset', { body: { email: person.email } });
  const resetToken = tokenFrom(await waitForMail(person.email, { subject: /Reset your/, since }));
  const reset = goodPassword();
  t.is((await c.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token: resetToken, password: reset } })).status, 200);
  await signIn(c, person.email, 'a wrong password to be logged about');
  secrets.push(changed, resetToken, reset, 'a wrong password to be logged about');

  t.deepEqual(
    await placesHolding(secrets, ['users', 'sessions', 'auth_tokens', 'audit_log', 'events', 'signin_throttle', 'memberships']),
    [],
  );
});
