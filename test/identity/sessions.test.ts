//! Sessions a person controls, on the real stack: see them, end one, end the others, sign out;
//! idle and absolute timeouts; the cookie's changes guarded against other sites; the account API
//! taking the session as the owner token.
import test from 'ava';
import { isProblem, newAccount, type UncheckedJson } from '../helpers/api.js';
import { client, signIn, signUp } from '../helpers/people.js';
import { withServiceDb } from '../helpers/db.js';

test('a person lists their sessions, ends one, ends all others, and signs out: each ended session is refused at once', async (t) => {
  const c = client();
  const person = await signUp(c);
  const laptop = (await signIn(c, person.email, person.password)).cookie!;
  const phone = (
    await client().request('POST', '/api/v1/auth/signin', {
      body: { email: person.email, password: person.password },
      headers: { 'user-agent': 'phone/1.0' },
    })
  ).setCookie.map((l) => l.split(';')[0]!)[0]!;

  const list = await c.request('GET', '/api/v1/auth/sessions', { cookie: laptop });
  t.is(list.status, 200);
  t.is(list.body.length, 3);
  t.is(list.body.filter((s: UncheckedJson) => s.current).length, 1);
  const phoneEntry = list.body.find((s: UncheckedJson) => s.userAgent === 'phone/1.0');
  t.truthy(phoneEntry?.ip);
  t.false(JSON.stringify(list.body).includes(laptop.split('=')[1]!), 'no session secret in the list');

  t.is((await c.request('DELETE', `/api/v1/auth/sessions/${phoneEntry.id}`, { cookie: laptop })).status, 204);
  t.true(isProblem(await c.request('GET', '/api/v1/account', { cookie: phone }), 401, 'unauthenticated'));
  t.true(
    isProblem(await c.request('DELETE', `/api/v1/auth/sessions/${phoneEntry.id}`, { cookie: laptop }), 404, 'not_found'),
    'ended already',
  );

  const others = await c.request('DELETE', '/api/v1/auth/sessions', { cookie: laptop });
  t.deepEqual(others.body, { ended: 1 });
  t.true(isProblem(await c.request('GET', '/api/v1/auth/session', { cookie: person.cookie }), 401, 'unauthenticated'));

  const out = await c.request('POST', '/api/v1/auth/signout', { cookie: laptop });
  t.is(out.status, 204);
  t.regex(out.setCookie[0]!, /^ut_session=; Max-Age=0/);
  t.true(isProblem(await c.request('GET', '/api/v1/auth/session', { cookie: laptop }), 401, 'unauthenticated'));
  t.true(isProblem(await c.request('GET', '/api/v1/account/keys', { cookie: laptop }), 401, 'unauthenticated'));
  const ended = await c.request('GET', '/api/v1/account/audit-log?action=session.ended', {
    cookie: (await signIn(c, person.email, person.password)).cookie,
  });
  t.is(ended.body.items.length, 3, 'each ended session is in the audit log');
  t.true(ended.body.items.every((e: UncheckedJson) => !JSON.stringify(e).includes(laptop.split('=')[1]!)));
});

test('a session ends after the idle timeout and at its absolute end', async (t) => {
  const c = client();
  const person = await signUp(c);
  const idle = (await signIn(c, person.email, person.password)).cookie!;
  const old = (await signIn(c, person.email, person.password)).cookie!;
  await withServiceDb(async (db) => {
    const sessions = db.collection('sessions');
    const [a, b] = await sessions.find({ userId: person.userId, endedAt: null }).sort({ createdAt: -1 }).limit(2).toArray();
    await sessions.updateOne({ _id: b!._id }, { $set: { lastSeenAt: new Date(Date.now() - 13 * 3_600_000) } }); // SESSION_IDLE_HOURS 12
    await sessions.updateOne({ _id: a!._id }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
  });
  const idleAnswer = await c.request('GET', '/api/v1/auth/session', { cookie: idle });
  t.true(isProblem(idleAnswer, 401, 'unauthenticated'));
  t.regex(idleAnswer.body.detail, /without use/);
  t.true(isProblem(await c.request('GET', '/api/v1/auth/session', { cookie: old }), 401, 'unauthenticated'));
  t.is((await c.request('GET', '/api/v1/auth/session', { cookie: person.cookie })).status, 200, 'the first one lives on');
});

test("a change made with the cookie must come from the service's own pages (csrf_rejected); a bearer credential is not affected", async (t) => {
  const c = client();
  const person = await signUp(c);
  const create = (headers: Record<string, string>, crossSite = true) =>
    c.request('POST', '/api/v1/account/keys', { cookie: person.cookie, body: { name: 'k' }, headers, crossSite });
  t.true(isProblem(await create({}), 403, 'csrf_rejected'), 'no Origin, no Sec-Fetch-Site');
  t.true(isProblem(await create({ origin: 'https://evil.example' }), 403, 'csrf_rejected'));
  t.true(isProblem(await create({ 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }), 403, 'csrf_rejected'));
  t.true(isProblem(await create({ 'sec-fetch-site': 'same-site' }), 403, 'csrf_rejected'));
  t.is((await create({ 'sec-fetch-site': 'same-origin' })).status, 201);
  t.is((await create({}, false)).status, 201, 'the Origin of the service');
  t.is((await c.request('GET', '/api/v1/account/keys', { cookie: person.cookie, crossSite: true })).status, 200, 'reading is not a change');
  t.true(isProblem(await c.request('POST', '/api/v1/auth/signout', { cookie: person.cookie, crossSite: true }), 403, 'csrf_rejected'));
  const operator = await newAccount(10);
  t.is(
    (await c.request('POST', '/api/v1/account/keys', { token: operator.ownerToken, body: { name: 'script' }, crossSite: true })).status,
    201,
  );
});

test('the account API takes the session as it takes the owner token, and the audit log names the person', async (t) => {
  const c = client();
  const person = await signUp(c);
  const key = await c.request('POST', '/api/v1/account/keys', { cookie: person.cookie, body: { name: 'from the dashboard' } });
  t.is(key.status, 201);
  const called = await fetch(`${process.env.API_URL}/api/v1/tools/hash-text`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.body.key}`, 'content-type': 'application/json' },
    body: '{"text":"hi"}',
  });
  t.is(called.status, 200);
  const log = await c.request('GET', '/api/v1/account/audit-log?action=api_key.created', { cookie: person.cookie });
  t.like(log.body.items[0], { actor: { type: 'user', credential: null, userId: person.userId }, target: { id: key.body.id } });
  const csv = await c.request('GET', '/api/v1/account/audit-log?action=api_key.created', {
    cookie: person.cookie,
    headers: { accept: 'text/csv' },
  });
  t.true(String(csv.body).split('\r\n')[1]!.includes(`,user,,${person.userId},`));
  // The session of one account manages only that account.
  const other = await newAccount(10);
  t.true(isProblem(await c.request('DELETE', `/api/v1/account/keys/${other.apiKeyId}`, { cookie: person.cookie }), 404, 'not_found'));
  // No credential at all is still 401 unauthorized (a bearer is asked for).
  t.true(isProblem(await c.request('GET', '/api/v1/account'), 401, 'unauthorized'));
});
