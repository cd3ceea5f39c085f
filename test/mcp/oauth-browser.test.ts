//! The whole OAuth flow as an agent and a person meet it, in Chromium: the SDK's own client, told
//! only the URL of `/mcp`, is refused (401), discovers the authorization server through the
//! challenge, registers itself and sends the person's browser to authorize; the person signs in on
//! the dashboard's page, picks the account on the consent page and allows; the browser lands on the
//! client's redirect URI and the client trades the code and calls a tool, charged to that account.
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import type { Browser } from 'puppeteer-core';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { request } from '../helpers/api.js';
import { client, serviceOrigin } from '../helpers/people.js';
import { teamAccount } from '../helpers/team.js';
import { launchBrowser, waitForText } from '../dashboard/page.js';

let browser: Browser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after.always(() => browser?.close());

/** The client's redirect URI: a loopback server that keeps the query it is sent (RFC 8252's way for a native app). */
async function redirectReceiver() {
  const server = http.createServer();
  let resolveQuery: (q: URLSearchParams) => void;
  const query = new Promise<URLSearchParams>((resolve) => {
    resolveQuery = resolve;
  });
  server.on('request', (req, res) => {
    resolveQuery(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('You can close this window.');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, query, close: () => server.close() };
}

/** What an MCP client keeps between runs, in memory; the authorization URL it would open in a browser. */
class MemoryOAuthProvider implements OAuthClientProvider {
  information?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata() {
    return {
      client_name: 'Browser agent',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation = () => this.information;
  saveClientInformation = (info: OAuthClientInformationMixed) => {
    this.information = info;
  };
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => {
    this.saved = tokens;
  };
  redirectToAuthorization = (url: URL) => {
    this.authorizationUrl = url;
  };
  saveCodeVerifier = (verifier: string) => {
    this.verifier = verifier;
  };
  codeVerifier = () => this.verifier;
}

test('an agent discovers, registers, is authorized by a person in the browser, and calls a tool on the account they chose', async (t) => {
  const c = client();
  const { account, members } = await teamAccount(c, ['owner', 'developer']);
  const person = members.developer!;
  const receiver = await redirectReceiver();
  t.teardown(receiver.close);
  const mcpUrl = new URL(`${serviceOrigin()}/mcp`);
  const oauth = new MemoryOAuthProvider(receiver.url);

  // Unauthorized: the SDK discovers and registers, then hands over the URL for the person's browser.
  await t.throwsAsync(
    new McpClient({ name: 'browser-agent', version: '1.0.0' }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: oauth })),
    {
      instanceOf: UnauthorizedError,
    },
  );
  t.truthy(oauth.information?.client_id);
  const authorizationUrl = oauth.authorizationUrl!;
  t.is(authorizationUrl.searchParams.get('resource'), mcpUrl.href);
  t.is(authorizationUrl.searchParams.get('code_challenge_method'), 'S256');

  const context = await browser.createBrowserContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  // Not signed in: the consent page sends the person to sign in, and back.
  await page.goto(authorizationUrl.href);
  await page.waitForSelector('#sign-in-email', { visible: true });
  t.regex(page.url(), /\/dashboard\/sign-in\?next=%2Foauth%2Finteraction%2F/);
  await page.locator('#sign-in-email').fill(person.email);
  await page.locator('#sign-in-password').fill(person.password);
  await page.click('#sign-in-form button[type=submit]');
  await page.waitForSelector('main.consent');
  const text = await page.$eval('main', (m) => m.textContent ?? '');
  t.regex(text, /Browser agent asks to use Utility Tools for you/);
  t.regex(text, /As developer, it may call every tool/);
  t.regex(text, /127\.0\.0\.1:\d+/, 'where its answers go');
  await Promise.all([page.waitForNavigation(), page.click('button[value=allow]')]);
  const query = await receiver.query;
  t.truthy(query.get('code'));

  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: oauth });
  await transport.finishAuth(query.get('code')!);
  const mcp = new McpClient({ name: 'browser-agent', version: '1.0.0' });
  await mcp.connect(transport);
  t.teardown(() => mcp.close());
  const result = (await mcp.callTool({ name: 'hash-text', arguments: { text: 'hello', algorithm: 'sha256' } })) as CallToolResult;
  t.falsy(result.isError, JSON.stringify(result));
  t.like(result._meta, { charged: 1, balance: 99 });
  t.is((await request('GET', '/api/v1/account', { token: account.ownerToken })).body.balance, 99);

  // The person finds the app under Connected apps and disconnects it: its token stops working.
  await page.goto(`${serviceOrigin()}/dashboard/connected-apps`);
  const row = await waitForText(page, '#connected-apps-body tbody tr:first-child', /Browser agent/);
  t.regex(row, /127\.0\.0\.1:\d+/);
  await page.click('#connected-apps-body tr:first-child button.danger');
  await page.waitForSelector('#confirm-dialog[open]');
  await page.click('#confirm-ok');
  await waitForText(page, '#connected-apps-body', /No connected apps/);
  const after = (await mcp.callTool({ name: 'account-balance', arguments: {} }).catch((err: Error) => err)) as Error;
  // Refused (401), the SDK tries its refresh token, which the disconnect ended too.
  t.regex(String(after), /^InvalidGrantError/);
});
