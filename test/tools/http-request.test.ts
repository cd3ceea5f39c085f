//! http-request: every method and header shape reaches a real server as described, the whole
//! response comes back (repeated headers, any status, redirects unfollowed, bodies decoded and
//! capped), refused targets and unreachable upstreams fail as the contract says, and the same
//! through HTTP against the running stack (charged only for answers).
import test from 'ava';
import { createHttpRequest } from '../../activities/tools/http-request.js';
import { FORBIDDEN_HEADERS, type HttpRequestInput } from '../../domain/tools/http-request.js';
import { findTool } from '../../domain/tools/catalogue.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { apiUrl, balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';
import { net, pages, securePages } from './support/page-fixtures.js';
import { caFromEnv, issueLeaf } from '../fixtures/tls-certs.js';
import { closedPort, startPageServer } from '../fixtures/http-pages.js';

const schemas = compileToolSchemas('http-request');
/** A context of its own per call: tests run concurrently and each call listens on its signal. */
const ctx = () => standaloneContext();

/** The handler with the deadline shortened for the tests that wait on a silent server. */
const tool = (timeoutMs?: number) => createHttpRequest({ http: net.http, timeoutMs });

/** Input as the API hands it on: validated against the schema, defaults applied. */
function input(t: Parameters<typeof validInput>[0], fields: Partial<HttpRequestInput>): HttpRequestInput {
  return validInput<HttpRequestInput>(t, schemas.input, fields);
}

async function echo(t: Parameters<typeof validInput>[0], fields: Partial<HttpRequestInput>) {
  const out = await tool()(input(t, { url: pages.url('/echo'), ...fields }), ctx());
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  return { out, sent: JSON.parse(out.body) as { method: string; path: string; headers: Record<string, string[]>; body: string } };
}

// ===== Unit: the handler called directly against fixture servers (no stack) =====

test('GET answers status, every header as received, the body as text and the time taken', async (t) => {
  const out = await tool()(input(t, { url: pages.url('/headers') }), ctx());
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  t.is(out.statusCode, 200);
  t.is(out.statusText, 'Fine Thanks');
  t.deepEqual(out.headers['set-cookie'], ['a=1; Path=/', 'b=2; Path=/; HttpOnly']);
  t.is(out.headers['x-multi'], 'one, two');
  t.is(out.headers['x-empty'], '');
  t.is(out.headers['content-type'], 'text/plain; charset=utf-8');
  t.is(out.body, 'ok');
  t.false(out.bodyTruncated);
  t.true(Number.isInteger(out.elapsedMs) && out.elapsedMs >= 0);
});

test('each of the seven methods reaches the target as that method', async (t) => {
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
    const { sent } = await echo(t, { method });
    t.is(sent.method, method);
  }
  const head = await tool()(input(t, { url: pages.url('/echo'), method: 'HEAD' }), ctx());
  t.is(head.statusCode, 200);
  t.is(head.body, '');
  t.is(pages.requests.at(-1)?.method, 'HEAD');
});

test('a body is sent as-is with its length; without a Content-Type it is text/plain as fetch sends it', async (t) => {
  const body = '{"name":"Zoë","list":[1,2]}';
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
    const { sent } = await echo(t, { method, body, headers: { 'Content-Type': 'application/json' } });
    t.is(sent.body, body, method);
    t.deepEqual(sent.headers['content-type'], ['application/json']);
    t.deepEqual(sent.headers['content-length'], [String(Buffer.byteLength(body))]);
  }
  const { sent } = await echo(t, { method: 'POST', body: 'plain words' });
  t.deepEqual(sent.headers['content-type'], ['text/plain;charset=UTF-8']);
  const empty = await echo(t, { method: 'POST', body: '' });
  t.deepEqual(empty.sent.headers['content-length'], ['0']);
});

test('headers given as an object or as a JSON string of one are sent alike', async (t) => {
  const headers = { 'X-Trace': 'abc 123', Accept: 'application/json', 'User-Agent': 'probe/2.0', Authorization: 'Bearer t0k3n' };
  for (const given of [headers, JSON.stringify(headers)]) {
    const { sent } = await echo(t, { headers: given });
    t.deepEqual(sent.headers['x-trace'], ['abc 123']);
    t.deepEqual(sent.headers.accept, ['application/json']);
    t.deepEqual(sent.headers['user-agent'], ['probe/2.0']);
    t.deepEqual(sent.headers.authorization, ['Bearer t0k3n']);
    t.deepEqual(sent.headers.host, [`127.0.0.2:${pages.port}`], 'Host follows the URL');
  }
  const { sent } = await echo(t, {});
  t.deepEqual(sent.headers['user-agent'], ['UtilityTools/1.0']);
});

test('headers of any other shape are 400 on /headers', async (t) => {
  const shapes: unknown[] = [
    'not json',
    '["a","b"]',
    '"a string"',
    '42',
    'null',
    JSON.stringify({ a: { nested: true } }),
    JSON.stringify({ a: 1 }),
  ];
  for (const headers of shapes) {
    const err = await rejectsWith(
      t,
      tool()({ url: pages.url('/echo'), method: 'GET', headers } as HttpRequestInput, ctx()),
      'validation_failed',
    );
    t.regex((err.extras.errors as { field: string }[])[0]!.field, /^\/headers/, String(headers));
  }
  // The object form is already refused by the schema when a value is not a string.
  t.false(schemas.input({ url: pages.url('/'), headers: { a: 1 } }));
  t.false(schemas.input({ url: pages.url('/'), headers: ['a'] }));
});

test('invalid names and values, repeats and too many headers are 400 naming the header', async (t) => {
  const cases: Array<[Record<string, string> | string, string]> = [
    [{ 'Bad Name': 'x' }, '/headers/Bad Name'],
    [{ 'X-Split': 'a\r\nInjected: yes' }, '/headers/X-Split'],
    [{ 'X-Nul': 'a\u0000b' }, '/headers/X-Nul'],
    [{ 'X-Emoji': 'hi 👋' }, '/headers/X-Emoji'],
    [{ 'X-Path/Name': 'x' }, '/headers/X-Path~1Name'],
    [JSON.stringify({ Accept: 'a', accept: 'b' }), '/headers/accept'],
    [Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`x-h${i}`, 'v'])), '/headers'],
  ];
  for (const [headers, field] of cases) {
    await rejectsWith(t, tool()({ url: pages.url('/echo'), method: 'GET', headers }, ctx()), 'validation_failed', field);
  }
});

test('Host, framing and hop-by-hop headers are refused with 400, in any case', async (t) => {
  t.true(FORBIDDEN_HEADERS.has('host'));
  for (const name of [
    'Host',
    'content-length',
    'Transfer-Encoding',
    'CONNECTION',
    'Keep-Alive',
    'Upgrade',
    'TE',
    'Trailer',
    'Expect',
    'Proxy-Connection',
  ]) {
    const err = await rejectsWith(
      t,
      tool()({ url: pages.url('/echo?forbidden'), method: 'POST', headers: { [name]: 'x' }, body: 'b' }, ctx()),
      'validation_failed',
      `/headers/${name}`,
    );
    t.regex(err.message, /set by the service/);
  }
  t.false(
    pages.requests.some((r) => r.path === '/echo?forbidden'),
    'nothing was sent',
  );
});

test('a body with GET or HEAD is 400 on /body; an empty one is no body', async (t) => {
  for (const method of ['GET', 'HEAD'] as const) {
    await rejectsWith(t, tool()({ url: pages.url('/echo'), method, body: 'x' }, ctx()), 'validation_failed', '/body');
    await rejectsWith(
      t,
      () => findTool('http-request')!.precheck!({ url: pages.url('/echo'), method, body: 'x' }),
      'validation_failed',
      '/body',
    );
  }
  const { sent } = await echo(t, { method: 'GET', body: '' });
  t.is(sent.body, '');
});

test('an error status from the target is an answer, not a failure', async (t) => {
  for (const status of [404, 500, 503]) {
    const out = await tool()(input(t, { url: pages.url(`/status/${status}`) }), ctx());
    t.is(out.statusCode, status);
    t.regex(out.body, new RegExp(`<h1>${status}</h1>`));
  }
});

test('redirects are returned, not followed, even to a private address', async (t) => {
  const out = await tool()(input(t, { url: pages.url('/redirect?status=301&to=/article.html') }), ctx());
  t.is(out.statusCode, 301);
  t.is(out.headers.location, '/article.html');
  const toPrivate = await tool()(input(t, { url: pages.url('/redirect?to=http://10.0.0.1/admin') }), ctx());
  t.is(toPrivate.statusCode, 302);
  t.is(toPrivate.headers.location, 'http://10.0.0.1/admin');
});

test('a gzip body is returned decoded, its headers as received', async (t) => {
  const out = await tool()(input(t, { url: pages.url('/gzip/article.html') }), ctx());
  t.is(out.headers['content-encoding'], 'gzip');
  t.regex(out.body, /<title>\s+Fixture {3}article/);
  const head = await tool()(input(t, { url: pages.url('/gzip/article.html'), method: 'HEAD' }), ctx());
  t.is(head.statusCode, 200);
  t.is(head.body, '');
});

test('the body is decoded from the charset the response declares', async (t) => {
  const out = await tool()(input(t, { url: pages.url('/cp1252.html') }), ctx());
  t.regex(out.body, /<title>Café €<\/title>/);
});

test('a body over 5 MiB is cut at 5 MiB with bodyTruncated', async (t) => {
  const out = await tool()(input(t, { url: pages.url(`/huge?bytes=${6 * 1024 * 1024}`) }), ctx());
  t.is(out.statusCode, 200);
  t.true(out.bodyTruncated);
  t.is(out.body.length, 5 * 1024 * 1024);
  const small = await tool()(input(t, { url: pages.url(`/huge?bytes=${5 * 1024 * 1024}`) }), ctx());
  t.false(small.bodyTruncated);
});

test('HTTPS targets work with a certificate the service trusts, by name and by address', async (t) => {
  const byAddress = await tool()(input(t, { url: securePages.url('/headers') }), ctx());
  t.is(byAddress.statusCode, 200);
  const byName = await tool()(input(t, { url: `https://fixture.test:${securePages.port}/headers` }), ctx());
  t.is(byName.body, 'ok');
});

test('private, loopback, metadata and credential-carrying targets are 422 with a reason', async (t) => {
  const cases: Array<[string, string]> = [
    [`http://127.0.0.1:${pages.port}/`, 'loopback'],
    ['http://10.0.0.1/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://[::1]/', 'loopback'],
    ['http://0x7f000001/', 'loopback'],
    [`http://private10.test:${pages.port}/`, 'private'],
    [`http://user:pw@127.0.0.2:${pages.port}/`, 'credentials'],
  ];
  for (const [url, reason] of cases) {
    const err = await rejectsWith(t, tool()(input(t, { url }), ctx()), 'target_not_allowed');
    t.is(err.extras.reason, reason, url);
  }
});

test('a URL that is not absolute http(s) is 400 on /url', async (t) => {
  for (const url of ['not a url', '/relative', 'ftp://127.0.0.2/file', 'file:///etc/passwd', 'javascript:alert(1)']) {
    await rejectsWith(t, tool()({ url, method: 'GET' }, ctx()), 'validation_failed', '/url');
  }
});

test('an unreachable target is 502 upstream_error with the reason', async (t) => {
  const refused = await rejectsWith(t, tool()(input(t, { url: `http://127.0.0.2:${await closedPort()}/` }), ctx()), 'upstream_error');
  t.is(refused.extras.reason, 'connection_refused');
  const unknown = await rejectsWith(t, tool()(input(t, { url: 'http://nxdomain.test/' }), ctx()), 'upstream_error');
  t.is(unknown.extras.reason, 'dns_nxdomain');
  const silent = await rejectsWith(t, tool(300)(input(t, { url: pages.url('/hang') }), ctx()), 'upstream_error');
  t.is(silent.extras.reason, 'timeout');
});

test('input schema: url required, method default GET, no unknown fields, example valid', (t) => {
  t.false(schemas.input({}));
  t.false(schemas.input({ url: 'http://x/', method: 'TRACE' }));
  t.false(schemas.input({ url: 'http://x/', follow: true }));
  const withDefaults = input(t, { url: 'http://x/' });
  t.is(withDefaults.method, 'GET');
  const { examples } = schemas.input.schema as { examples: unknown[] };
  t.true(schemas.input(structuredClone(examples[0])));
  t.true(schemas.output((schemas.output.schema as { examples: unknown[] }).examples[0]));
});

// ===== Integration: through HTTP against the running stack =====

test('stack: a call answers the response and charges 2 credits', async (t) => {
  const account = await newAccount(20);
  const res = await callTool(account.apiKey, 'http-request', {
    url: pages.url('/echo'),
    method: 'PUT',
    headers: '{"X-Test":"1"}',
    body: 'hello',
  });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.true(schemas.output(res.body));
  const sent = JSON.parse(res.body.body);
  t.like(sent, { method: 'PUT', body: 'hello' });
  t.deepEqual(sent.headers['x-test'], ['1']);
  t.is(res.headers.get('x-credits-charged'), '2');
  t.is(await balanceOf(account), 18);
});

test('stack: a 500 from the target is a charged answer', async (t) => {
  const account = await newAccount(20);
  const res = await callTool(account.apiKey, 'http-request', { url: pages.url('/status/500') });
  t.is(res.status, 200);
  t.is(res.body.statusCode, 500);
  t.is(await balanceOf(account), 18);
});

test('stack: bad headers and bad URLs are 400 and not charged', async (t) => {
  const account = await newAccount(20);
  const host = await callTool(account.apiKey, 'http-request', { url: pages.url('/echo'), headers: { Host: 'internal' } });
  t.true(isProblem(host, 400, 'validation_failed'));
  t.deepEqual(
    host.body.errors.map((e: { field: string }) => e.field),
    ['/headers/Host'],
  );
  t.true(isProblem(await callTool(account.apiKey, 'http-request', { url: pages.url('/echo'), headers: '[1]' }), 400, 'validation_failed'));
  t.true(isProblem(await callTool(account.apiKey, 'http-request', { url: 'ftp://127.0.0.2/' }), 400, 'validation_failed'));
  t.true(
    isProblem(await callTool(account.apiKey, 'http-request', { url: pages.url('/'), method: 'GET', body: 'x' }), 400, 'validation_failed'),
  );
  t.is(await balanceOf(account), 20);
});

test('stack: the service itself and private addresses are refused with 422 and not charged', async (t) => {
  const account = await newAccount(20);
  const self = await callTool(account.apiKey, 'http-request', { url: `${apiUrl()}/healthz` });
  t.true(isProblem(self, 422, 'target_not_allowed'), JSON.stringify(self.body));
  t.is(self.body.reason, 'loopback');
  const ten = await callTool(account.apiKey, 'http-request', { url: 'http://10.0.0.1/' });
  t.true(isProblem(ten, 422, 'target_not_allowed'));
  t.is(ten.body.reason, 'private');
  t.is(await balanceOf(account), 20);
});

test('stack: an unreachable target is 502 and the balance is unchanged', async (t) => {
  const account = await newAccount(20);
  const res = await callTool(account.apiKey, 'http-request', { url: `http://127.0.0.2:${await closedPort()}/` });
  t.true(isProblem(res, 502, 'upstream_error'), JSON.stringify(res.body));
  t.is(res.body.reason, 'connection_refused');
  t.is(await balanceOf(account), 20);
});

// The stack trusts its own test CA (NODE_EXTRA_CA_CERTS); the runner names it in TEST_CA_CERT and
// TEST_CA_KEY.
test("stack: an HTTPS target signed by the stack's CA answers, by address and by name", async (t) => {
  const leaf = await issueLeaf(await caFromEnv(), { names: ['fixture.test', '127.0.0.2'] });
  const secure = await startPageServer({ tls: leaf });
  try {
    const account = await newAccount(20);
    for (const url of [secure.url('/headers'), `https://fixture.test:${secure.port}/headers`]) {
      const res = await callTool(account.apiKey, 'http-request', { url });
      t.is(res.status, 200, JSON.stringify(res.body));
      t.is(res.body.body, 'ok');
    }
    t.is(await balanceOf(account), 16);
  } finally {
    await secure.close();
  }
});
