//! Signing in on the real stack: one answer for every wrong address or password, the lockout
//! kept in the database (so every API instance holds it), and the owner told by mail.
import test from 'ava';
import { isProblem, type UncheckedJson } from '../helpers/api.js';
import { uniqueAddress, waitForMail } from '../helpers/mailbox.js';
import { client, goodPassword, sessionCookieOf, signIn, signUp } from '../helpers/people.js';
import { withServiceDb } from '../helpers/db.js';
import { createSigninThrottle, throttleKeys, CLIENT_FAILURE_LIMIT } from '../../domain/identity/throttle.js';

/** The problem without what differs per request. */
const shape = (body: Record<string, unknown>) => ({ ...body, requestId: undefined, traceId: undefined });

test('a wrong password, an unknown address and an unverified address get one and the same 401', async (t) => {
  const c = client();
  const person = await signUp(c);
  const unverified = uniqueAddress('unverified');
  await c.request('POST', '/api/v1/auth/signup', { body: { email: unverified, password: goodPassword() } });
  const answers = [
    (await signIn(c, person.email, 'not the password at all, surely')).res,
    (await signIn(c, uniqueAddress('unknown'), goodPassword())).res,
    (await signIn(c, unverified, goodPassword())).res,
  ];
  for (const res of answers) t.true(isProblem(res, 401, 'invalid_credentials'), JSON.stringify(res.body));
  t.deepEqual(shape(answers[1]!.body), shape(answers[0]!.body));
  t.deepEqual(shape(answers[2]!.body), shape(answers[0]!.body));
  t.is(answers[0]!.setCookie.length, 0);
});

test('a password sign-in renews the session id, and records user.signed_in with its method in the audit log', async (t) => {
  const c = client();
  const person = await signUp(c);
  const { res, cookie } = await signIn(c, ` ${person.email.toUpperCase()} `, person.password);
  t.is(res.status, 200);
  t.truthy(cookie);
  t.not(cookie, person.cookie);
  // Signing in with the old cookie replaces it: the old id ends.
  const again = await c.request('POST', '/api/v1/auth/signin', { cookie, body: { email: person.email, password: person.password } });
  t.is(again.status, 200);
  t.true(isProblem(await c.request('GET', '/api/v1/auth/session', { cookie }), 401, 'unauthenticated'));
  const log = await c.request('GET', '/api/v1/account/audit-log?action=user.signed_in', { cookie: sessionCookieOf(again.setCookie) });
  t.is(log.status, 200);
  const methods = log.body.items.map((e: UncheckedJson) => e.changes.method[1]).sort();
  t.deepEqual(methods, ['password', 'password', 'verification']);
  t.true(
    log.body.items.every((e: UncheckedJson) => e.actor.type === 'user' && e.actor.userId === person.userId && e.actor.credential === null),
  );
});

test('10 failures for one address within 15 minutes lock it for 15 minutes, whatever password; its owner is told by mail once', async (t) => {
  const c = client();
  const person = await signUp(c);
  const since = new Date(Date.now() - 1000);
  for (let i = 0; i < 10; i++)
    t.true(isProblem((await signIn(c, person.email, `wrong password number ${i}!`)).res, 401, 'invalid_credentials'));
  const locked = (await signIn(c, person.email, person.password)).res;
  t.true(isProblem(locked, 429, 'too_many_attempts'), 'the right password too');
  const retryAfter = Number(locked.headers.get('retry-after'));
  t.true(retryAfter > 800 && retryAfter <= 900, String(retryAfter));
  t.is(locked.body.retryAfter, retryAfter);
  // From another client address too: the lock is the address's.
  t.true(isProblem((await signIn(client(), person.email, person.password)).res, 429, 'too_many_attempts'));
  const mail = await waitForMail(person.email, { subject: /paused/, since });
  t.regex(mail.text, /15 minutes/);
  const log = await c.request('GET', '/api/v1/account/audit-log?action=user.locked_out', { cookie: person.cookie });
  t.is(log.body.items.length, 1);
  // An unknown address locks alike (nothing tells that it is unknown), and nobody is mailed.
  const nobody = uniqueAddress('nobody');
  for (let i = 0; i < 10; i++) await signIn(c, nobody, `wrong password number ${i}!`);
  t.true(isProblem((await signIn(c, nobody, goodPassword())).res, 429, 'too_many_attempts'));
  // A lock that has run out lets the right password in.
  await withServiceDb((db) =>
    db
      .collection('signin_throttle')
      .updateMany(
        { lockedUntil: { $ne: null } },
        { $set: { lockedUntil: new Date(Date.now() - 1000), windowStart: new Date(Date.now() - 16 * 60_000) } },
      ),
  );
  t.is((await signIn(c, person.email, person.password)).res.status, 200);
});

test('100 failures from one client address lock that client, for any address', async (t) => {
  const c = client();
  const person = await signUp(c);
  // 99 failures counted as the API counts them (the same code, on the same database), then the 100th over HTTP.
  await withServiceDb(async (db) => {
    const throttle = createSigninThrottle(db);
    for (let i = 0; i < CLIENT_FAILURE_LIMIT - 1; i++) await throttle.failed(throttleKeys(uniqueAddress('spray'), c.from));
  });
  t.true(isProblem((await signIn(c, uniqueAddress('spray'), goodPassword())).res, 401, 'invalid_credentials'));
  t.true(isProblem((await signIn(c, person.email, person.password)).res, 429, 'too_many_attempts'));
  t.is((await signIn(client(), person.email, person.password)).res.status, 200, 'another client is not locked');
});

test('a sign-in with a malformed address is 400; a body without a password is 400 naming it', async (t) => {
  const c = client();
  const bad = await c.request('POST', '/api/v1/auth/signin', { body: { email: 'nope', password: goodPassword() } });
  t.true(isProblem(bad, 400, 'validation_failed'));
  t.is(bad.body.errors[0].field, '/email');
  const missing = await c.request('POST', '/api/v1/auth/signin', { body: { email: uniqueAddress() } });
  t.true(isProblem(missing, 400, 'validation_failed'));
  t.is(missing.body.errors[0].field, '/password');
});
