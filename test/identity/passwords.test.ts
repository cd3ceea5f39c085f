//! Changing and resetting a password on the real stack: the current password and a recent sign-in
//! required, the other sessions ended, a note mailed; a reset link mailed alike for any address,
//! single use, 30 minutes, and every session ended by it.
import test from 'ava';
import { isProblem } from '../helpers/api.js';
import { tokenFrom, uniqueAddress, waitForMail, mailsTo } from '../helpers/mailbox.js';
import { client, goodPassword, signIn, signUp } from '../helpers/people.js';
import { withServiceDb } from '../helpers/db.js';

test('changing the password needs the current one and a recent sign-in, ends the other sessions and mails a note', async (t) => {
  const c = client();
  const person = await signUp(c);
  const other = (await signIn(client(), person.email, person.password)).cookie!;
  const newPassword = goodPassword();
  const since = new Date(Date.now() - 1000);

  const wrong = await c.request('POST', '/api/v1/auth/password', {
    cookie: person.cookie,
    body: { currentPassword: 'not my password, clearly', newPassword },
  });
  t.true(isProblem(wrong, 400, 'validation_failed'));
  t.is(wrong.body.errors[0].field, '/currentPassword');
  const weak = await c.request('POST', '/api/v1/auth/password', {
    cookie: person.cookie,
    body: { currentPassword: person.password, newPassword: 'too short' },
  });
  t.is(weak.body.errors?.[0]?.field, '/newPassword');
  const guessable = await c.request('POST', '/api/v1/auth/password', {
    cookie: person.cookie,
    body: { currentPassword: person.password, newPassword: 'qwertyuiopasdfgh' },
  });
  t.true(isProblem(guessable, 400, 'validation_failed'));
  t.like(guessable.body.errors[0], { field: '/newPassword' });
  t.regex(guessable.body.errors[0].message, /too easy to guess: a row of keys/);

  await withServiceDb((db) =>
    db
      .collection('sessions')
      .updateOne({ userId: person.userId, method: 'verification' }, { $set: { authenticatedAt: new Date(Date.now() - 11 * 60_000) } }),
  );
  t.true(
    isProblem(
      await c.request('POST', '/api/v1/auth/password', { cookie: person.cookie, body: { currentPassword: person.password, newPassword } }),
      403,
      'reauthentication_required',
    ),
  );

  const fresh = (await signIn(c, person.email, person.password)).cookie!;
  const changed = await c.request('POST', '/api/v1/auth/password', {
    cookie: fresh,
    body: { currentPassword: person.password, newPassword },
  });
  t.is(changed.status, 200);
  t.true(changed.body.sessionsEnded >= 2);
  t.true(isProblem(await c.request('GET', '/api/v1/auth/session', { cookie: other }), 401, 'unauthenticated'));
  t.is((await c.request('GET', '/api/v1/auth/session', { cookie: fresh })).status, 200, 'this session stays');
  await waitForMail(person.email, { subject: /password was changed/, since });
  t.true(isProblem((await signIn(c, person.email, person.password)).res, 401, 'invalid_credentials'));
  t.is((await signIn(c, person.email, newPassword)).res.status, 200);
  const log = await c.request('GET', '/api/v1/account/audit-log?action=user.password_changed', { cookie: fresh });
  t.is(log.body.items.length, 1);
  t.false(JSON.stringify(log.body).includes(newPassword));
});

test('a reset answers alike for any address, mails a single-use link, and a reset ends every session', async (t) => {
  const c = client();
  const person = await signUp(c);
  const since = new Date(Date.now() - 1000);
  const known = await c.request('POST', '/api/v1/auth/password-reset', { body: { email: person.email } });
  const unknownAddress = uniqueAddress('nobody');
  const unknown = await c.request('POST', '/api/v1/auth/password-reset', { body: { email: unknownAddress } });
  t.is(known.status, 202);
  t.deepEqual(known.body, unknown.body);
  const mail = await waitForMail(person.email, { subject: /Reset your/, since });
  const link = mail.links.find((l) => l.includes('token='))!;
  t.regex(link, /^http:\/\/localhost:\d+\/dashboard\/reset\?token=/);

  // Host header of the request never makes the link: PUBLIC_BASE_URL does.
  await c.request('POST', '/api/v1/auth/password-reset', { body: { email: person.email }, headers: { host: 'evil.example' } });
  const second = await waitForMail(person.email, { subject: /Reset your/, after: mail });
  t.false(second.links.some((l) => l.includes('evil.example')));

  const token = tokenFrom(mail);
  const weak = await c.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token, password: 'short' } });
  t.is(weak.body.errors?.[0]?.field, '/password');
  const guessable = await c.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token, password: 'monkeymonkeymonkey' } });
  t.like(guessable.body.errors?.[0], { field: '/password' });
  t.regex(guessable.body.errors[0].message, /too easy to guess: a word repeated/);
  const newPassword = goodPassword();
  const done = await c.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token, password: newPassword } });
  t.is(done.status, 200, 'the link still works after a refused password');
  t.deepEqual(done.body, { status: 'password_changed' });
  t.is(done.setCookie.length, 0, 'a reset signs nobody in');
  t.true(isProblem(await c.request('GET', '/api/v1/auth/session', { cookie: person.cookie }), 401, 'unauthenticated'));
  t.true(
    isProblem(
      await c.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token, password: goodPassword() } }),
      400,
      'invalid_token',
    ),
    'used once',
  );
  t.true(
    isProblem(
      await c.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token: tokenFrom(second), password: goodPassword() } }),
      400,
      'invalid_token',
    ),
    'a reset ends the other reset links',
  );
  t.is((await signIn(c, person.email, newPassword)).res.status, 200);
  await waitForMail(person.email, { subject: /password was changed/, since });
  t.deepEqual(await mailsTo(unknownAddress), [], 'an unknown address is mailed nothing');
});

test('a reset link expires after 30 minutes', async (t) => {
  const c = client();
  const person = await signUp(c);
  const since = new Date(Date.now() - 1000);
  await c.request('POST', '/api/v1/auth/password-reset', { body: { email: person.email } });
  const token = tokenFrom(await waitForMail(person.email, { subject: /Reset your/, since }));
  await withServiceDb(async (db) => {
    const doc = await db.collection('auth_tokens').findOne({ email: person.email, purpose: 'password_reset' });
    t.is(doc!.expiresAt.getTime() - doc!.createdAt.getTime(), 30 * 60_000);
    t.false(JSON.stringify(doc).includes(token), 'only its digest is stored');
    await db.collection('auth_tokens').updateOne({ _id: doc!._id }, { $set: { expiresAt: new Date(Date.now() - 1) } });
  });
  t.true(
    isProblem(
      await c.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token, password: goodPassword() } }),
      400,
      'invalid_token',
    ),
  );
});
