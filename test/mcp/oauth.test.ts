//! Agents signing in with OAuth for `/mcp`, against the running stack, as HTTP (the browser a cookie
//! jar; Chromium drives the same flow in oauth-browser.test.ts). Refusals first: a 401 that says
//! where to go, no PKCE, another resource, a code used twice, a consent posted from another site,
//! a refresh token used twice, a viewer's app, a token that is not an access token for `/mcp`; then
//! the flow whose token calls a tool charged like any call, and its ends (Connected apps, RFC 7009).
import https from 'node:https';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { apiUrl, isProblem, newAccount, request, type UncheckedJson } from '../helpers/api.js';
import { client, serviceOrigin, signUp } from '../helpers/people.js';
import { teamAccount } from '../helpers/team.js';
import { FIXTURE_HOST } from '../fixtures/http-pages.js';
import { caFromEnv, issueLeaf } from '../fixtures/tls-certs.js';
import { withServiceDb } from '../helpers/db.js';
import { createAuthorizationServer } from '../../api/oauth/authorization-server.js';
import { placesHolding } from '../helpers/traces-of-secrets.js';
import { answerConsent, beginAuthorization, connectApp, pkcePair, registerApp, tokenRequest } from '../helpers/oauth.js';

const resource = () => `${serviceOrigin()}/mcp`;

/** A JSON-RPC request to `/mcp` with `token`, as its HTTP answer. */
const mcpPost = (token: string | undefined, body: unknown) =>
  request('POST', '/mcp', {
    ...(token ? { token } : {}),
    body,
    headers: { accept: 'application/json, text/event-stream' },
  });

const listTools = (token: string) => mcpPost(token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });

async function mcpClient(token: string): Promise<McpClient> {
  const mcp = new McpClient({ name: 'oauth-test', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${apiUrl()}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return mcp;
}

const auditActions = async (ownerToken: string, action: string) =>
  (await request('GET', `/api/v1/account/audit-log?action=${action}`, { token: ownerToken })).body.items as UncheckedJson[];

test('a 401 from /mcp points at its protected resource metadata, which names this service as the authorization server', async (t) => {
  const res = await mcpPost(undefined, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
  t.true(isProblem(res, 401, 'unauthorized'));
  const challenge = res.headers.get('www-authenticate')!;
  t.regex(challenge, /^Bearer resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp", scope="mcp"$/);
  const metadataUrl = new URL(/resource_metadata="([^"]+)"/.exec(challenge)![1]!);
  const metadata = (await request('GET', metadataUrl.pathname)).body;
  t.like(metadata, { resource: resource(), authorization_servers: [serviceOrigin()], scopes_supported: ['mcp'] });

  const bad = await mcpPost('not-a-token', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
  t.true(isProblem(bad, 401, 'unauthorized'));
  t.regex(bad.headers.get('www-authenticate')!, /error="invalid_token"$/);

  const as = (await request('GET', '/.well-known/oauth-authorization-server')).body;
  t.is(as.issuer, serviceOrigin());
  t.deepEqual(as.code_challenge_methods_supported, ['S256']);
  t.true(as.client_id_metadata_document_supported);
  t.regex(as.registration_endpoint, /\/oauth\/register$/);
  t.regex(as.revocation_endpoint, /\/oauth\/revoke$/);
  t.deepEqual(as.response_types_supported, ['code']);
});

test('an authorization without PKCE, or for a resource other than /mcp, is refused before anyone is asked', async (t) => {
  const c = client();
  const app = await registerApp(c);
  const noPkce = await beginAuthorization(c, app, { resource: resource() });
  t.is(noPkce.status, 303);
  t.true(noPkce.location.startsWith(app.redirectUri), noPkce.location);
  t.is(new URL(noPkce.location).searchParams.get('error'), 'invalid_request');

  const elsewhere = await beginAuthorization(c, app, { ...challengeParams(), resource: 'https://elsewhere.example/api' });
  t.true(elsewhere.location.startsWith(app.redirectUri), elsewhere.location);
  t.is(new URL(elsewhere.location).searchParams.get('error'), 'invalid_target');
});

const challengeParams = () => ({ code_challenge: pkcePair().challenge, code_challenge_method: 'S256' });

test('the consent page asks for a dashboard session, and a consent posted from another site is refused', async (t) => {
  const c = client();
  const person = await signUp(c);
  const app = await registerApp(c, 'Consent checker');
  const auth = await beginAuthorization(c, app, { ...challengeParams(), resource: resource(), scope: 'mcp' });
  t.is(auth.status, 303);
  t.regex(auth.location, /\/oauth\/interaction\/[\w-]+$/);
  const path = new URL(auth.location, apiUrl()).pathname;

  const signedOut = await c.request('GET', path, { cookie: auth.jar.header() });
  t.is(signedOut.status, 303);
  t.is(signedOut.headers.get('location'), `/dashboard/sign-in?next=${encodeURIComponent(path)}`);

  const page = await c.request('GET', path, { cookie: auth.jar.header(person.cookie) });
  t.is(page.status, 200);
  t.regex(page.headers.get('content-security-policy')!, /form-action 'self' http:\/\/127\.0\.0\.1:9/);
  t.true(String(page.body).includes('Consent checker'));
  t.true(String(page.body).includes(`value="${person.accountId}"`));
  t.regex(String(page.body), /As owner, it may call every tool/);

  // Another browser (without the authorization's cookie) cannot answer it.
  const otherBrowser = await c.request('POST', path, { cookie: person.cookie, form: { decision: 'allow', accountId: person.accountId } });
  t.true(isProblem(otherBrowser, 404, 'not_found'));
  const crossSite = await c.request('POST', path, {
    cookie: auth.jar.header(person.cookie),
    form: { decision: 'allow', accountId: person.accountId },
    crossSite: true,
  });
  t.true(isProblem(crossSite, 403, 'csrf_rejected'));
  const notTheirs = await answerConsent(c, auth, person.cookie, { decision: 'allow', accountId: 'acc_not_theirs' });
  t.is(notTheirs.status, 422);

  const denied = await answerConsent(c, auth, person.cookie, { decision: 'deny' });
  t.true(denied instanceof URL);
  t.is((denied as URL).searchParams.get('error'), 'access_denied');
  const log = await c.request('GET', '/api/v1/account/audit-log?action=oauth_app.authorized', { cookie: person.cookie });
  t.deepEqual(log.body.items, []);
  t.deepEqual((await c.request('GET', '/api/v1/account/connected-apps', { cookie: person.cookie })).body, []);
});

test('the flow: a token for /mcp calls a tool charged like any call, a code works once, and the audit log names the app', async (t) => {
  const c = client();
  const { account, members } = await teamAccount(c, ['owner', 'developer']);
  const app = await registerApp(c, 'Flow agent');
  const tokens = await connectApp(c, app, members.developer!.cookie, account.id, resource());
  t.is(tokens.token_type, 'Bearer');
  t.truthy(tokens.refresh_token);

  const mcp = await mcpClient(tokens.access_token);
  t.teardown(() => mcp.close());
  const { tools } = await mcp.listTools();
  t.true(tools.some((tool) => tool.name === 'hash-text'));
  const result = (await mcp.callTool({ name: 'hash-text', arguments: { text: 'hello', algorithm: 'sha256' } })) as CallToolResult;
  t.falsy(result.isError, JSON.stringify(result));
  t.like(result._meta, { charged: 1, balance: 99 });

  const [authorized] = await auditActions(account.ownerToken, 'oauth_app.authorized');
  t.like(authorized, { actor: { type: 'user', userId: members.developer!.userId }, target: { type: 'oauth_app' } });
  t.deepEqual(authorized.changes.clientName, [null, 'Flow agent']);
  const listed = (await request('GET', '/api/v1/account/connected-apps', { token: account.ownerToken })).body;
  t.like(listed, [{ id: authorized.target.id, clientName: 'Flow agent', userId: members.developer!.userId, redirectHost: '127.0.0.1:9' }]);

  // The tokens are in no history, document or log: the store keeps digests of them.
  const requestId = (result._meta as UncheckedJson).requestId;
  t.deepEqual(await placesHolding([tokens.access_token, tokens.refresh_token], [requestId]), []);
});

test('a code is traded once, only with its verifier', async (t) => {
  const c = client();
  const person = await signUp(c);
  const app = await registerApp(c);
  const { verifier, challenge } = pkcePair();
  const auth = await beginAuthorization(c, app, { code_challenge: challenge, code_challenge_method: 'S256', resource: resource() });
  const back = (await answerConsent(c, auth, person.cookie, { decision: 'allow', accountId: person.accountId })) as URL;
  const code = back.searchParams.get('code')!;
  const trade = (code_verifier: string) =>
    tokenRequest(c, app, { grant_type: 'authorization_code', code, code_verifier, redirect_uri: app.redirectUri, resource: resource() });
  const wrong = await trade(pkcePair().verifier);
  t.is(wrong.status, 400);
  t.is(wrong.body.error, 'invalid_grant');
  // The library consumes a code at its first presentation, right or wrong: a guessed verifier cannot be retried.
  const again = await trade(verifier);
  t.is(again.status, 400);
  t.is(again.body.error, 'invalid_grant');
});

test('a refresh token is rotated, and one used twice ends the grant', async (t) => {
  const c = client();
  const person = await signUp(c);
  const app = await registerApp(c);
  const first = await connectApp(c, app, person.cookie, person.accountId, resource());
  const refreshed = await tokenRequest(c, app, { grant_type: 'refresh_token', refresh_token: first.refresh_token, resource: resource() });
  t.is(refreshed.status, 200, JSON.stringify(refreshed.body));
  t.not(refreshed.body.refresh_token, first.refresh_token);
  t.is((await listTools(refreshed.body.access_token)).status, 200);

  const replayed = await tokenRequest(c, app, { grant_type: 'refresh_token', refresh_token: first.refresh_token, resource: resource() });
  t.is(replayed.body.error, 'invalid_grant');
  // A stolen refresh token's reuse ends every token of the grant, the thief's and the app's.
  t.true(isProblem(await listTools(refreshed.body.access_token), 401, 'unauthorized'));
  const next = await tokenRequest(c, app, {
    grant_type: 'refresh_token',
    refresh_token: refreshed.body.refresh_token,
    resource: resource(),
  });
  t.is(next.body.error, 'invalid_grant');
  // The account sees it ended, and why.
  t.deepEqual((await c.request('GET', '/api/v1/account/connected-apps', { cookie: person.cookie })).body, []);
  const log = await c.request('GET', '/api/v1/account/audit-log?action=oauth_app.revoked', { cookie: person.cookie });
  t.like(log.body.items, [{ actor: { type: 'service' }, changes: { reason: [null, 'a used refresh token was presented again'] } }]);
});

test("an app connected by a viewer reads the balance but calls no tool; an owner's disconnect ends it at once", async (t) => {
  const c = client();
  const { account, members } = await teamAccount(c, ['owner', 'viewer']);
  const app = await registerApp(c, 'Viewer agent');
  const tokens = await connectApp(c, app, members.viewer!.cookie, account.id, resource());
  const mcp = await mcpClient(tokens.access_token);
  t.teardown(() => mcp.close());
  t.deepEqual(
    (await mcp.listTools()).tools.map((tool) => tool.name),
    ['account-balance', 'account-usage', 'monitor-list'],
  );
  const refused = (await mcp.callTool({ name: 'hash-text', arguments: { text: 'x', algorithm: 'sha256' } })) as CallToolResult;
  t.true(refused.isError);
  t.regex((refused.content[0] as { text: string }).text, /^tool_not_allowed: This app acts with the role viewer/);
  // Monitors as the role table says: a viewer reads them (monitor-list) and makes none.
  const monitor = { name: 'm', tool: 'hash-text', input: { text: 'x' }, schedule: { every: '1h' }, assertions: [] };
  const noMonitor = (await mcp.callTool({ name: 'monitor-create', arguments: monitor })) as CallToolResult;
  t.true(noMonitor.isError);
  t.regex((noMonitor.content[0] as { text: string }).text, /^forbidden_for_role: /);
  t.like((await mcp.callTool({ name: 'monitor-list', arguments: {} })).structuredContent, { items: [], nextCursor: null });
  const balance = (await mcp.callTool({ name: 'account-balance', arguments: {} })) as CallToolResult;
  t.like(balance.structuredContent, { balance: 100 });

  const [connection] = (await request('GET', '/api/v1/account/connected-apps', { token: account.ownerToken })).body;
  // A viewer may read the list, not disconnect.
  const byViewer = await c.request('DELETE', `/api/v1/account/connected-apps/${connection.id}`, { cookie: members.viewer!.cookie });
  t.true(isProblem(byViewer, 403, 'forbidden_for_role'));
  const gone = await request('DELETE', `/api/v1/account/connected-apps/${connection.id}`, { token: account.ownerToken });
  t.is(gone.status, 204);
  t.true(isProblem(await listTools(tokens.access_token), 401, 'unauthorized'));
  const refresh = await tokenRequest(c, app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, resource: resource() });
  t.is(refresh.body.error, 'invalid_grant');
  t.deepEqual((await request('GET', '/api/v1/account/connected-apps', { token: account.ownerToken })).body, []);
  const [revoked] = await auditActions(account.ownerToken, 'oauth_app.revoked');
  t.like(revoked, { actor: { type: 'owner' }, target: { type: 'oauth_app', id: connection.id } });
  t.true(
    isProblem(await request('DELETE', `/api/v1/account/connected-apps/${connection.id}`, { token: account.ownerToken }), 404, 'not_found'),
  );
});

test('the app revokes its own token (RFC 7009); a registration token is no access token; another account cannot disconnect it', async (t) => {
  const c = client();
  const person = await signUp(c);
  const stranger = await newAccount(10);
  const app = await registerApp(c);
  const tokens = await connectApp(c, app, person.cookie, person.accountId, resource());
  t.true(isProblem(await listTools(app.registrationAccessToken), 401, 'unauthorized'));

  const [connection] = (await c.request('GET', '/api/v1/account/connected-apps', { cookie: person.cookie })).body;
  const foreign = await request('DELETE', `/api/v1/account/connected-apps/${connection.id}`, { token: stranger.ownerToken });
  t.true(isProblem(foreign, 404, 'not_found'));
  t.is((await listTools(tokens.access_token)).status, 200);

  const revoked = await c.request('POST', '/oauth/revoke', {
    form: { client_id: app.clientId, token: tokens.access_token },
    crossSite: true,
  });
  t.is(revoked.status, 200);
  t.true(isProblem(await listTools(tokens.access_token), 401, 'unauthorized'));
});

/** Serves a client ID metadata document over HTTPS at `host` (the run's CA signs it), its URL being the client's id. */
async function metadataDocumentServer(t: ExecutionContext, host: string, name: string) {
  const leaf = await issueLeaf(await caFromEnv(), { names: [host] });
  const server = https.createServer({ cert: leaf.cert, key: leaf.key });
  server.listen(0, host);
  await once(server, 'listening');
  t.teardown(() => server.close());
  const clientId = `https://${host}:${(server.address() as AddressInfo).port}/agent/client.json`;
  server.on('request', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
    res.end(
      JSON.stringify({
        client_id: clientId,
        client_name: name,
        redirect_uris: ['http://127.0.0.1:9/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    );
  });
  return { clientId, redirectUri: 'http://127.0.0.1:9/callback', registrationAccessToken: '' };
}

test('a client whose id is the URL of its metadata document is fetched through the target guard, and connects', async (t) => {
  const c = client();
  const person = await signUp(c);
  const app = await metadataDocumentServer(t, FIXTURE_HOST, 'Metadata agent');
  const { verifier, challenge } = pkcePair();
  const auth = await beginAuthorization(c, app, {
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: resource(),
    scope: 'mcp',
  });
  t.regex(auth.location, /\/oauth\/interaction\//);
  const page = await c.request('GET', new URL(auth.location, apiUrl()).pathname, { cookie: auth.jar.header(person.cookie) });
  t.true(String(page.body).includes(`Its description is published at ${app.clientId}`));
  const back = (await answerConsent(c, auth, person.cookie, { decision: 'allow', accountId: person.accountId })) as URL;
  const tokens = await tokenRequest(c, app, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    code_verifier: verifier,
    redirect_uri: app.redirectUri,
    resource: resource(),
  });
  t.is(tokens.status, 200, JSON.stringify(tokens.body));
  t.is((await listTools(tokens.body.access_token)).status, 200);

  // A document on an address the guard refuses (loopback, where the database listens) is never fetched.
  const refused = await metadataDocumentServer(t, '127.0.0.1', 'Loopback agent');
  const attempt = await beginAuthorization(c, refused, { ...challengeParams(), resource: resource() });
  t.is(attempt.status, 400);
  t.regex(String((await c.request('GET', `/oauth/authorize?client_id=${encodeURIComponent(refused.clientId)}`)).body), /invalid_client/);
});

test('an access token of this server for another resource than /mcp is refused there', async (t) => {
  const c = client();
  const person = await signUp(c);
  const app = await registerApp(c);
  await connectApp(c, app, person.cookie, person.accountId, resource());
  const [connection] = (await c.request('GET', '/api/v1/account/connected-apps', { cookie: person.cookie })).body;
  // A token of the same grant and store whose audience is elsewhere: this server issues none (it
  // refuses other resources), so it is minted here, into the service's own store.
  const value = await withServiceDb(async (db) => {
    const provider = createAuthorizationServer({
      db,
      baseUrl: serviceOrigin(),
      secretKey: randomBytes(32),
      resource: resource(),
      proxy: false,
      http: { request: () => Promise.reject(new Error('not used')) },
    });
    const owner = await provider.Client.find(app.clientId);
    return new provider.AccessToken({
      accountId: person.userId,
      client: owner,
      grantId: connection.id,
      aud: 'https://elsewhere.example/api',
      scope: 'mcp',
    }).save();
  });
  const refused = await listTools(value);
  t.true(isProblem(refused, 401, 'unauthorized'));
  t.regex(refused.body.detail, /not for .*\/mcp/);
  t.regex(refused.headers.get('www-authenticate')!, /error="invalid_token"$/);
});
