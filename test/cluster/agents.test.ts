//! An agent's OAuth tokens across the two API replicas: a token issued through the load balancer
//! calls `/mcp` on either replica, and an app disconnected through one replica is refused by both
//! from the next request (tokens are read from the database on every request, never cached).
import test from 'ava';
import { isProblem, request } from '../helpers/api.js';
import { client, serviceOrigin, signUp } from '../helpers/people.js';
import { connectApp, registerApp } from '../helpers/oauth.js';

const replicas = (): { 'api-1': string; 'api-2': string } => {
  const urls = JSON.parse(process.env.CLUSTER_API_URLS_JSON ?? '{}');
  if (!urls['api-1'] || !urls['api-2']) throw new Error('CLUSTER_API_URLS_JSON is not set: run this file through `npm run test:cluster`');
  return urls;
};

const listTools = (baseUrl: string, token: string) =>
  request('POST', '/mcp', {
    baseUrl,
    token,
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    headers: { accept: 'application/json, text/event-stream' },
  });

test('an app disconnected through one replica is refused by both at once', async (t) => {
  const { 'api-1': one, 'api-2': two } = replicas();
  const c = client();
  const person = await signUp(c);
  const app = await registerApp(c, 'Cluster agent');
  const tokens = await connectApp(c, app, person.cookie, person.accountId, `${serviceOrigin()}/mcp`);
  for (const baseUrl of [one, two]) t.is((await listTools(baseUrl, tokens.access_token)).status, 200);

  const [connection] = (await c.request('GET', '/api/v1/account/connected-apps', { baseUrl: one, cookie: person.cookie })).body;
  t.is((await c.request('DELETE', `/api/v1/account/connected-apps/${connection.id}`, { baseUrl: one, cookie: person.cookie })).status, 204);
  const [first, second] = await Promise.all([two, one].map((baseUrl) => listTools(baseUrl, tokens.access_token)));
  t.true(isProblem(first!, 401, 'unauthorized'));
  t.true(isProblem(second!, 401, 'unauthorized'));
});
