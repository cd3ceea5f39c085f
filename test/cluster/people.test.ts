//! People across the two API replicas: the sign-in lockout is counted in the database, so
//! failures sent to either replica add up; a session ended through one replica is refused by the
//! other at once (sessions are read uncached), and so is the session of a member removed through one.
import test from 'ava';
import { isProblem } from '../helpers/api.js';
import { client, signIn, signUp } from '../helpers/people.js';
import { teamAccount } from '../helpers/team.js';

const replicas = (): { 'api-1': string; 'api-2': string } => {
  const urls = JSON.parse(process.env.CLUSTER_API_URLS_JSON ?? '{}');
  if (!urls['api-1'] || !urls['api-2']) throw new Error('CLUSTER_API_URLS_JSON is not set: run this file through `npm run test:cluster`');
  return urls;
};

test('failed sign-ins sent to both replicas add up to one lock, held by both', async (t) => {
  const { 'api-1': one, 'api-2': two } = replicas();
  const c = client();
  const person = await signUp(c);
  for (let i = 0; i < 10; i++) {
    const res = await c.request('POST', '/api/v1/auth/signin', {
      baseUrl: i % 2 ? two : one,
      body: { email: person.email, password: `wrong password number ${i}!` },
    });
    t.true(isProblem(res, 401, 'invalid_credentials'));
  }
  for (const baseUrl of [one, two]) {
    t.true(
      isProblem(
        await c.request('POST', '/api/v1/auth/signin', { baseUrl, body: { email: person.email, password: person.password } }),
        429,
        'too_many_attempts',
      ),
    );
  }
});

test('a session signed out through one replica is refused by the other at once', async (t) => {
  const { 'api-1': one, 'api-2': two } = replicas();
  const c = client();
  const person = await signUp(c);
  const { cookie } = await signIn(c, person.email, person.password);
  for (const baseUrl of [one, two]) t.is((await c.request('GET', '/api/v1/account', { baseUrl, cookie })).status, 200);
  t.is((await c.request('POST', '/api/v1/auth/signout', { baseUrl: one, cookie })).status, 204);
  t.true(isProblem(await c.request('GET', '/api/v1/account', { baseUrl: two, cookie }), 401, 'unauthenticated'));
  t.true(isProblem(await c.request('GET', '/api/v1/auth/session', { baseUrl: one, cookie }), 401, 'unauthenticated'));
});

test('a member removed through one replica has their session refused by both at once', async (t) => {
  const { 'api-1': one, 'api-2': two } = replicas();
  const c = client();
  const { account, members } = await teamAccount(c, ['owner', 'developer'], 'Cluster team');
  const { cookie, userId } = members.developer!;
  for (const baseUrl of [one, two]) t.is((await c.request('GET', '/api/v1/account/keys', { baseUrl, cookie })).status, 200);
  t.is((await c.request('DELETE', `/api/v1/account/members/${userId}`, { baseUrl: one, token: account.ownerToken })).status, 204);
  // The first request to either replica after the answer is refused: no cache holds the session.
  const [first, second] = await Promise.all([two, one].map((baseUrl) => c.request('GET', '/api/v1/account/keys', { baseUrl, cookie })));
  t.true(isProblem(first!, 401, 'unauthenticated'));
  t.true(isProblem(second!, 401, 'unauthenticated'));
});
