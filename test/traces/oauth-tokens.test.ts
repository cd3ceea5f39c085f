//! An agent's OAuth tokens in no trace, read back from Jaeger (`npm run test:traces`): neither the
//! token requests' traces nor that of the MCP tool call made with the refreshed token hold one.
import test from 'ava';
import { request } from '../helpers/api.js';
import { client, serviceOrigin, signUp } from '../helpers/people.js';
import { connectApp, registerApp, tokenRequest } from '../helpers/oauth.js';
import { everything, hasAll, traceIdOf, traceOf } from './support/jaeger.js';

test("an agent's OAuth tokens are in no trace: the token requests' and its MCP tool call's", async (t) => {
  const c = client();
  const person = await signUp(c);
  const app = await registerApp(c, 'Traced agent');
  const resource = `${serviceOrigin()}/mcp`;
  const first = await connectApp(c, app, person.cookie, person.accountId, resource);
  const refreshed = await tokenRequest(c, app, { grant_type: 'refresh_token', refresh_token: first.refresh_token, resource });
  t.is(refreshed.status, 200, JSON.stringify(refreshed.body));
  const call = await request('POST', '/mcp', {
    token: refreshed.body.access_token,
    headers: { accept: 'application/json, text/event-stream' },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'hash-text', arguments: { text: 'traced', algorithm: 'sha256' } },
    },
  });
  t.is(call.status, 200);

  const tokens = [first.access_token, first.refresh_token, refreshed.body.access_token, refreshed.body.refresh_token];
  const callTrace = await traceOf(traceIdOf(call), hasAll(['tool hash-text', 'ledger commit']));
  const refreshTrace = await traceOf(traceIdOf(refreshed), (x) => x.spans.length > 0);
  for (const [what, trace] of [
    ['the MCP call', callTrace],
    ['the refresh', refreshTrace],
  ] as const) {
    const text = everything(trace);
    tokens.forEach((token, i) => t.false(text.includes(token), `${what}: token #${i} is in its trace`));
  }
});
