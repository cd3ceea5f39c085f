//! Signing up on the real stack: the mail read back from its real SMTP server, the account opened
//! once with its welcome grant once per mailbox, and nothing that tells whether an address is known.
import test from 'ava';
import { isProblem } from '../helpers/api.js';
import { tokenFrom, uniqueAddress, waitForMail } from '../helpers/mailbox.js';
import { client, goodPassword, sessionCookieOf, signUp } from '../helpers/people.js';
import { withServiceDb } from '../helpers/db.js';

test('sign-up mails a single-use link; verifying opens the account with its welcome grant and signs in', async (t) => {
  const c = client();
  const email = uniqueAddress('ada');
  const password = goodPassword();
  const since = new Date(Date.now() - 1000);
  const asked = await c.request('POST', '/api/v1/auth/signup', { body: { email, password, name: 'Ada' } });
  t.is(asked.status, 202);
  t.deepEqual(asked.body, { status: 'verification_sent' });

  const mail = await waitForMail(email, { subject: /Confirm your address/, since });
  t.true(mail.text.length > 0 && mail.html.length > 0, 'text and HTML parts');
  const link = mail.links.find((l) => l.includes('token='))!;
  t.regex(link, /^http:\/\/localhost:\d+\/dashboard\/verify\?token=/, 'built on PUBLIC_BASE_URL');
  t.false(/<img/i.test(mail.html), 'no tracking pixel or remote image');
  t.false(mail.text.includes('acc_') || mail.html.includes('acc_'), 'no account is named to an unproved address');

  const verified = await c.request('POST', '/api/v1/auth/verify', { body: { token: tokenFrom(mail) } });
  t.is(verified.status, 200);
  const cookie = sessionCookieOf(verified.setCookie)!;
  t.truthy(cookie);
  const line = verified.setCookie.find((l) => l.startsWith('ut_session='))!;
  t.regex(line, /HttpOnly/);
  t.regex(line, /SameSite=Lax/);
  t.regex(line, /Path=\//);
  t.notRegex(line, /Secure/, 'plain http: no Secure, so the browser keeps it');
  t.like(verified.body, { user: { email, name: 'Ada' }, account: { role: 'owner', name: 'Ada' } });
  t.is(verified.body.accounts.length, 1);

  const account = await c.request('GET', '/api/v1/account', { cookie });
  t.is(account.status, 200);
  t.is(account.body.balance, 100, 'FREE_CREDITS once');

  const again = await c.request('POST', '/api/v1/auth/verify', { body: { token: tokenFrom(mail) } });
  t.true(isProblem(again, 400, 'invalid_token'), 'the link works once');
  await withServiceDb(async (db) => {
    t.is(await db.collection('users').countDocuments({ email }), 1);
    t.is(await db.collection('memberships').countDocuments({ userId: verified.body.user.id }), 1);
    const user = await db.collection('users').findOne({ email });
    t.regex(
      user!.passwordHash,
      /^\$argon2id\$v=19\$(?=[^$]*m=19456)(?=[^$]*t=2)(?=[^$]*p=1)[^$]+\$/,
      'Argon2id at 19 MiB, 2 passes, 1 lane',
    );
    t.false(JSON.stringify(user).includes(password), 'never the password');
  });
});

test('a known address answers the same 202 and gets a "you already have an account" mail, not a second account', async (t) => {
  const c = client();
  const person = await signUp(c);
  const since = new Date(Date.now() - 1000);
  const unknown = await c.request('POST', '/api/v1/auth/signup', { body: { email: uniqueAddress('nobody'), password: goodPassword() } });
  const known = await c.request('POST', '/api/v1/auth/signup', { body: { email: person.email.toUpperCase(), password: goodPassword() } });
  t.is(known.status, unknown.status);
  t.deepEqual(known.body, unknown.body);
  const note = await waitForMail(person.email, { subject: /already have/, since });
  t.false(
    note.links.some((l) => l.includes('token=')),
    'the note carries no token',
  );
  await withServiceDb(async (db) => t.is(await db.collection('users').countDocuments({ email: person.email }), 1));
});

test('plus-addressed sign-ups share one mailbox: the second account opens without a welcome grant', async (t) => {
  const c = client();
  const local = uniqueAddress('box').split('@')[0];
  const first = await signUp(c, { email: `${local}@mail.test` });
  const second = await signUp(c, { email: `${local}+again@mail.test` });
  t.not(first.accountId, second.accountId);
  t.is((await c.request('GET', '/api/v1/account', { cookie: first.cookie })).body.balance, 100);
  t.is((await c.request('GET', '/api/v1/account', { cookie: second.cookie })).body.balance, 0);
  const grants = await c.request('GET', '/api/v1/account/grants', { cookie: second.cookie });
  t.deepEqual(grants.body.items, [], 'no grant at all, not a zero one');
});

test('guessable passwords are 400 naming the pattern (a word repeated, a row of keys); four random words are taken', async (t) => {
  const c = client();
  const email = uniqueAddress('guessable');
  const since = new Date();
  const cases: [string, RegExp][] = [
    ['123456789012345', /sequence/],
    ['qwertyuiopasdfgh', /a row of keys/],
    ['monkeymonkeymonkey', /a word repeated/],
    ['asdfghjklasdfghjkl', /a row of keys repeated/],
    ['iloveyouiloveyou1', /a word repeated/],
  ];
  for (const [password, pattern] of cases) {
    const res = await c.request('POST', '/api/v1/auth/signup', { body: { email, password } });
    t.true(isProblem(res, 400, 'validation_failed'), `${password}: ${JSON.stringify(res.body)}`);
    t.is(res.body.errors[0].field, '/password');
    t.regex(res.body.errors[0].message, /too easy to guess/);
    t.regex(res.body.errors[0].message, pattern, password);
  }
  t.is((await c.request('POST', '/api/v1/auth/signup', { body: { email, password: 'quarry velvet nimbus tulip' } })).status, 202);
  t.truthy(await waitForMail(email, { subject: /Confirm/, since }), 'only the strong one was mailed');
});

test('bad input: a malformed address, a short, a long and a common password are 400 naming the field and why; nothing is mailed', async (t) => {
  const c = client();
  const email = uniqueAddress('bad');
  const since = new Date();
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ email: 'not-an-address', password: goodPassword() }, '/email', /not an email address/],
    [{ email, password: 'short but 14ch' }, '/password', /at least 15 characters/],
    [{ email, password: 'x'.repeat(120) + 'y'.repeat(140) }, '/password', /at most 256/],
    [{ email, password: '123456789987654321' }, '/password', /common or breached/],
    [{ email, password: 'aaaaaaaaaaaaaaaaaaaa' }, '/password', /repeated or a simple sequence/],
    [{ email, password: 'Utility Tools 2026!' }, '/password', /service's name/],
  ];
  for (const [body, field, why] of cases) {
    const res = await c.request('POST', '/api/v1/auth/signup', { body });
    t.true(isProblem(res, 400, 'validation_failed'), JSON.stringify(res.body));
    t.is(res.body.errors[0].field, field);
    t.regex(res.body.errors[0].message, why);
  }
  // Any Unicode counts, by characters: 15 emoji are 15 characters.
  const emoji = '🔑🌍🎲🦊🍐🚲🎻🧭🪁🐙🌵🎈🧩🛶🍄';
  t.is((await c.request('POST', '/api/v1/auth/signup', { body: { email, password: emoji } })).status, 202);
  const mails = await waitForMail(email, { subject: /Confirm/, since });
  t.truthy(mails, 'only the good one was mailed');
});

test('a forged, expired or reused token is 400 invalid_token and opens nothing', async (t) => {
  const c = client();
  t.true(
    isProblem(
      await c.request('POST', '/api/v1/auth/verify', { body: { token: 'forged-token-forged-token-forged' } }),
      400,
      'invalid_token',
    ),
  );
  const email = uniqueAddress('late');
  const since = new Date(Date.now() - 1000);
  await c.request('POST', '/api/v1/auth/signup', { body: { email, password: goodPassword() } });
  const mail = await waitForMail(email, { subject: /Confirm/, since });
  await withServiceDb((db) => db.collection('auth_tokens').updateMany({ email }, { $set: { expiresAt: new Date(Date.now() - 1000) } }));
  t.true(isProblem(await c.request('POST', '/api/v1/auth/verify', { body: { token: tokenFrom(mail) } }), 400, 'invalid_token'));
  await withServiceDb(async (db) => t.is(await db.collection('users').countDocuments({ email }), 0));
});

test('two concurrent uses of one link open one account and sign in once', async (t) => {
  const c = client();
  const email = uniqueAddress('race');
  const since = new Date(Date.now() - 1000);
  await c.request('POST', '/api/v1/auth/signup', { body: { email, password: goodPassword() } });
  const token = tokenFrom(await waitForMail(email, { subject: /Confirm/, since }));
  const answers = await Promise.all([1, 2, 3].map(() => c.request('POST', '/api/v1/auth/verify', { body: { token } })));
  t.is(answers.filter((a) => a.status === 200).length, 1);
  t.true(answers.filter((a) => a.status !== 200).every((a) => isProblem(a, 400, 'invalid_token')));
  await withServiceDb(async (db) => {
    const user = await db.collection('users').findOne({ email });
    t.is(await db.collection('memberships').countDocuments({ userId: user!._id }), 1);
    t.is(
      await db
        .collection('grants')
        .countDocuments({ accountId: (await db.collection('memberships').findOne({ userId: user!._id }))!.accountId }),
      1,
    );
  });
});
