//! The API's request metrics are labelled by route template, also for requests a router's
//! middleware refused before any route ran (no regular-expression text in a label).
import test from 'ava';
import { request } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';

async function routeLabels(): Promise<string[]> {
  const text = await (await fetch(`${testEnv.apiUrl()}/metrics`)).text();
  return [...text.matchAll(/^http_request_duration_seconds_count\{[^}]*route="([^"]*)"/gm)].map((m) => m[1]!);
}

test('a request refused by the account router\'s authentication is labelled with its route, not the prefix pattern', async (t) => {
  const res = await request('DELETE', '/api/v1/account/keys/key_nope', { token: 'uto_not-a-token' });
  t.is(res.status, 401);
  const labels = await routeLabels();
  t.true(labels.includes('/api/v1/account/keys/:id'), labels.join(', '));
  t.deepEqual(labels.filter((l) => /[()?\\$]/.test(l)), [], 'no label is regular-expression text');
});
