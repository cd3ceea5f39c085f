//! `/mcp` against the running stack, through the SDK's own client over Streamable HTTP: the tools
//! listed from the catalogue (a limited key sees only its own), calls answered with structured
//! output valid against each tool's outputSchema and charged as REST charges them, a retry with
//! the same idempotency key charged once, refusals as isError results carrying the problem's code,
//! progress for a long call, the key's rate on every message (429 for a listing loop), the HTTP
//! answers the SDK never sees or words as JSON-RPC (401, 403, 405, 406) as problem+json, and
//! docs/MCP.md's tool table held to the catalogue.
import { readFileSync } from 'node:fs';
import test, { type ExecutionContext } from 'ava';
import argon2 from 'argon2';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { CATALOGUE } from '../../domain/tools/catalogue.js';
import { publishedToolSchemas } from '../../domain/tools/schemas.js';
import { createAjv } from '../../lib/json-schema.js';
import { toolHints, toolTitle } from '../../api/mcp/tool-list.js';
import { apiUrl, balanceOf, callTool, isProblem, newAccount, request, type TestAccount, type UncheckedJson } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';

async function connect(t: ExecutionContext, key: string): Promise<Client> {
  const client = new Client({ name: 'utility-tools-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${apiUrl()}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  t.teardown(() => client.close());
  return client;
}

async function newKey(account: TestAccount, settings: Record<string, unknown>): Promise<string> {
  const res = await request('POST', '/api/v1/account/keys', { token: account.ownerToken, body: settings });
  if (res.status !== 201) throw new Error(`could not create a key: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.key;
}

const call = (client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
  client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }) as Promise<CallToolResult>;

const textOf = (result: CallToolResult) => (result.content[0] as { type: 'text'; text: string }).text;

/** Asserts `result` is a refusal with `code`, and returns the problem it carries. */
function refusal(t: ExecutionContext, result: CallToolResult, code: string): UncheckedJson {
  t.true(result.isError, JSON.stringify(result));
  t.true(textOf(result).startsWith(`${code}: `), textOf(result));
  const problem = (result._meta as UncheckedJson).problem;
  t.like(problem, { code, status: problem.status, title: problem.title });
  t.true(problem.type.endsWith(`/docs/errors#${code}`));
  t.is(result.structuredContent, undefined);
  return problem;
}

const ajv = createAjv();

/** Asserts the call succeeded, charged `cost`, and that its structured content is valid against the listed outputSchema. */
function succeeded(t: ExecutionContext, tools: Tool[], name: string, result: CallToolResult, cost: number): UncheckedJson {
  t.falsy(result.isError, JSON.stringify(result).slice(0, 500));
  const validate = ajv.compile(tools.find((tool) => tool.name === name)!.outputSchema!);
  t.true(validate(structuredClone(result.structuredContent)), JSON.stringify(validate.errors));
  t.like(result._meta, { charged: cost, replayed: false });
  t.regex((result._meta as UncheckedJson).requestId, /^call-/);
  return result.structuredContent;
}

test('tools/list: every catalogue tool with its REST schemas, cost and hints; a limited key is listed only its tools', async (t) => {
  const account = await newAccount(10);
  const { tools } = await (await connect(t, account.apiKey)).listTools();
  t.deepEqual(
    tools.map((tool) => tool.name),
    [...CATALOGUE.keys(), 'account-balance', 'account-usage', 'monitor-list', 'monitor-create'],
  );
  const hash = tools.find((tool) => tool.name === 'hash-text')!;
  t.deepEqual(hash.inputSchema, publishedToolSchemas('hash-text').input);
  t.deepEqual(hash.outputSchema, publishedToolSchemas('hash-text').output);
  t.like(hash, { title: 'Hash text', annotations: { readOnlyHint: true }, _meta: { cost: 1 } });
  t.is(hash.annotations!.openWorldHint, undefined, 'hashing reaches nothing outside');
  t.regex(hash.description!, /Cost: 1 credit,/);
  t.like(
    tools.find((tool) => tool.name === 'website-screenshot'),
    { annotations: { readOnlyHint: true, openWorldHint: true }, _meta: { cost: 25 } },
  );
  t.is(tools.find((tool) => tool.name === 'http-request')!.annotations!.readOnlyHint, undefined, 'its method may change the target');

  const limited = await newKey(account, { tools: ['hash-text', 'network'] });
  const listed = (await (await connect(t, limited)).listTools()).tools.map((tool) => tool.name);
  const network = [...CATALOGUE.values()].filter((tool) => tool.group === 'network').map((tool) => tool.name);
  t.deepEqual(listed.sort(), [...network, 'hash-text', 'account-balance', 'account-usage', 'monitor-list', 'monitor-create'].sort());
});

test('tools/call: structured output valid against outputSchema, an image as image content, each call charged once as REST shows', async (t) => {
  const account = await newAccount(100);
  const client = await connect(t, account.apiKey);
  const { tools } = await client.listTools();

  const hashed = succeeded(t, tools, 'hash-text', await call(client, 'hash-text', { text: 'hello world' }), 1);
  const rest = await callTool(account.apiKey, 'hash-text', { text: 'hello world' });
  t.deepEqual(hashed, rest.body, 'the REST answer, as it is');

  const qr = await call(client, 'qr-generate', { text: 'https://example.com/', size: 128 });
  const qrOut = succeeded(t, tools, 'qr-generate', qr, 1);
  t.deepEqual(qr.content[1], { type: 'image', data: qrOut.imageBase64, mimeType: 'image/png' });
  t.false(textOf(qr).includes(qrOut.imageBase64), 'the text leaves the base64 out');
  t.like(qr.content[2], { type: 'resource_link', name: 'qr-generate.png', mimeType: 'image/png' }, 'without a link secret, a result link');

  const bcrypt = await call(client, 'bcrypt-hash', { password: 'correct horse battery staple', workFactor: 4 });
  t.regex(succeeded(t, tools, 'bcrypt-hash', bcrypt, 2).hash, /^\$2[aby]\$04\$/);

  const page = await call(client, 'http-request', { url: `${testEnv.fixtures().http.url}/about` });
  t.is(succeeded(t, tools, 'http-request', page, 2).statusCode, 200);

  // 1 + 1 (REST) + 1 + 2 + 2, and the last call's _meta says what REST reads.
  t.is(await balanceOf(account), 100 - 7);
  t.is((page._meta as UncheckedJson).balance, 93);
});

test('more tools through MCP: DNS, pages, password hashes, each valid against its outputSchema', async (t) => {
  const account = await newAccount(20);
  const client = await connect(t, account.apiKey);
  const { tools } = await client.listTools();
  const page = `${testEnv.fixtures().http.url}/article.html`;
  const password = 'correct horse battery staple';
  const [bcrypt, argon] = [
    (await call(client, 'bcrypt-hash', { password, workFactor: 4 })).structuredContent as UncheckedJson,
    await argon2.hash(password, { memoryCost: 19_456, timeCost: 2, parallelism: 1 }),
  ];
  const [dns, seo, scrape, bcryptOk, argonOk] = await Promise.all([
    call(client, 'dns-lookup', { hostname: 'mail.test', recordType: 'MX' }),
    call(client, 'seo-meta', { url: page }),
    call(client, 'web-scrape', { url: page }),
    call(client, 'bcrypt-verify', { password, hash: bcrypt.hash }),
    call(client, 'argon2-verify', { password, hash: argon }),
  ]);
  t.true(succeeded(t, tools, 'dns-lookup', dns, 1).found);
  t.truthy(succeeded(t, tools, 'seo-meta', seo, 2).title);
  t.truthy(succeeded(t, tools, 'web-scrape', scrape, 3).text);
  t.true(succeeded(t, tools, 'bcrypt-verify', bcryptOk, 2).matches);
  t.true(succeeded(t, tools, 'argon2-verify', argonOk, 3).matches);
  t.is(await balanceOf(account), 20 - 2 - 1 - 2 - 3 - 2 - 3);
});

test('with a link secret, a capture also answers a signed, expiring render link to the same image, free to fetch', async (t) => {
  const account = await newAccount(10);
  t.is((await request('POST', '/api/v1/account/link-secrets', { token: account.ownerToken })).status, 201);
  const client = await connect(t, account.apiKey);
  const result = await call(client, 'qr-generate', { text: 'linked', size: 256 });
  t.falsy(result.isError, textOf(result));
  const link = result.content.find((c) => c.type === 'resource_link') as UncheckedJson;
  t.like(link, { name: 'qr-generate.png', mimeType: 'image/png' });
  const uri = new URL(link.uri);
  t.regex(uri.pathname, /^\/api\/v1\/render\/lks_\w+\/qr-generate$/);
  t.true(Number(uri.searchParams.get('expires')) > Date.now() / 1000);
  const image = await fetch(`${apiUrl()}${uri.pathname}${uri.search}`);
  t.is(image.status, 200);
  t.is(image.headers.get('x-cache'), 'HIT');
  t.is(image.headers.get('x-credits-charged'), '0');
  const bytes = Buffer.from(await image.arrayBuffer());
  t.deepEqual(bytes, Buffer.from((result.structuredContent as UncheckedJson).imageBase64, 'base64'));
  t.is(await balanceOf(account), 9, 'the call is charged once; the link costs nothing');
});

test('a retry with the same idempotency key is answered once and charged once; another key is another call', async (t) => {
  const account = await newAccount(10);
  const client = await connect(t, account.apiKey);
  const meta = { idempotencyKey: `retry-${Date.now()}` };
  const first = await call(client, 'hash-text', { text: 'once' }, meta);
  const again = await call(client, 'hash-text', { text: 'once' }, meta);
  t.like(first._meta, { charged: 1, replayed: false });
  t.like(again._meta, { replayed: true, requestId: (first._meta as UncheckedJson).requestId });
  t.deepEqual(again.structuredContent, first.structuredContent);
  t.is(await balanceOf(account), 9);

  refusal(t, await call(client, 'hash-text', { text: 'other' }, meta), 'idempotency_conflict');
  await call(client, 'hash-text', { text: 'once' }, { idempotencyKey: `${meta.idempotencyKey}-2` });
  t.is(await balanceOf(account), 8);
  refusal(t, await call(client, 'hash-text', { text: 'once' }, { idempotencyKey: 7 }), 'validation_failed');

  // Or the HTTP request's Idempotency-Key header, which a client may send on every request.
  const headed = new Client({ name: 'utility-tools-test', version: '1.0.0' });
  const headers = { Authorization: `Bearer ${account.apiKey}`, 'Idempotency-Key': `header-${Date.now()}` };
  await headed.connect(new StreamableHTTPClientTransport(new URL(`${apiUrl()}/mcp`), { requestInit: { headers } }));
  t.teardown(() => headed.close());
  const byHeader = [await call(headed, 'hash-text', { text: 'header' }), await call(headed, 'hash-text', { text: 'header' })];
  t.deepEqual(
    byHeader.map((r) => (r._meta as UncheckedJson).replayed),
    [false, true],
  );
  t.is(await balanceOf(account), 7);
});

test('refusals are tool results with the problem: 402 says how to buy credits, a key out of scope, bad input, an unknown tool', async (t) => {
  const account = await newAccount(1);
  const client = await connect(t, account.apiKey);

  const short = refusal(t, await call(client, 'bcrypt-hash', { password: 'correct horse battery staple' }), 'insufficient_credits');
  t.like(short, { status: 402, balance: 1, cost: 2 });
  const shortResult = await call(client, 'bcrypt-hash', { password: 'correct horse battery staple' });
  t.regex(textOf(shortResult), /Buy credits in the dashboard, http.*\/dashboard\/billing/);

  const bad = refusal(t, await call(client, 'hash-text', { text: 5, algorithm: 'crc' }), 'validation_failed');
  t.deepEqual(bad.errors.map((e: { field: string }) => e.field).sort(), ['/algorithm', '/text']);

  refusal(t, await call(client, 'no-such-tool', {}), 'unknown_tool');

  const limited = await connect(t, await newKey(account, { tools: ['hash-text'] }));
  const outOfScope = refusal(t, await call(limited, 'qr-generate', { text: 'x' }), 'tool_not_allowed');
  t.like(outOfScope, { status: 403, tool: 'qr-generate' });
  t.is(await balanceOf(account), 1, 'no refusal is charged');
});

test("429: a key's own rate, refused as a result that says when to retry", async (t) => {
  const account = await newAccount(10);
  const client = await connect(t, await newKey(account, { rateLimit: 1 }));
  // A burst of two, then one a second: a handful at once must meet the limit.
  let limited: CallToolResult | undefined;
  for (let i = 0; i < 20 && !limited; i++) {
    const results = await Promise.all([1, 2, 3, 4].map(() => call(client, 'account-balance', {})));
    limited = results.find((r) => r.isError);
  }
  const problem = refusal(t, limited!, 'rate_limited');
  t.true(problem.retryAfter >= 1, JSON.stringify(problem));
});

test("every message takes from the key's rate: listing in a loop is 429 problem+json, and the calls after it are refused", async (t) => {
  const account = await newAccount(10);
  const key = await newKey(account, { rateLimit: 1 });
  // Connected first: its initialize and initialized notification take from the rate too.
  const client = await connect(t, key);
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
  const accept = { accept: 'application/json, text/event-stream' };
  // A burst of two, then one a second: a handful at once must meet the limit.
  let limited: Awaited<ReturnType<typeof request>> | undefined;
  for (let i = 0; i < 20 && !limited; i++) {
    const answers = await Promise.all([1, 2, 3, 4].map(() => request('POST', '/mcp', { token: key, body: list, headers: accept })));
    t.true(
      answers.every((a) => a.status === 200 || a.status === 429),
      JSON.stringify(answers.map((a) => a.status)),
    );
    limited = answers.find((a) => a.status === 429);
  }
  t.true(isProblem(limited!, 429, 'rate_limited'), JSON.stringify(limited?.body));
  t.true(Number(limited!.headers.get('retry-after')) >= 1);
  // The bucket the listing emptied is the one a tool call takes from: three at once are more
  // than it can hold (two), however long since the refusal.
  const calls = await Promise.all([1, 2, 3].map(() => call(client, 'account-balance', {})));
  t.true(
    calls.some((r) => r.isError && textOf(r).startsWith('rate_limited: ')),
    JSON.stringify(calls),
  );
});

test('the account tools: the balance and recent usage, free', async (t) => {
  const account = await newAccount(10);
  const client = await connect(t, account.apiKey);
  const hashed = await call(client, 'hash-text', { text: 'usage' });
  t.deepEqual((await call(client, 'account-balance', {})).structuredContent, { balance: 9 });
  const usage = (await call(client, 'account-usage', { limit: 5 })).structuredContent as UncheckedJson;
  t.like(usage.items[0], {
    requestId: (hashed._meta as UncheckedJson).requestId,
    tool: 'hash-text',
    credits: 1,
    outcome: 'charged',
    via: 'mcp',
  });
  const rest = await request('GET', '/api/v1/account/usage?limit=1', { token: account.ownerToken });
  t.like(rest.body.items[0], { requestId: (hashed._meta as UncheckedJson).requestId, via: 'mcp' }, 'REST lists the call, marked');
  refusal(t, await call(client, 'account-usage', { limit: 500 }), 'validation_failed');
  t.is(await balanceOf(account), 9);
});

test('a call longer than a second sends progress notifications while it runs', async (t) => {
  const account = await newAccount(10);
  const client = await connect(t, account.apiKey);
  const progress: number[] = [];
  // The page answers after 2.5 s at the earliest: at least one notification, however busy the machine.
  const result = (await client.callTool(
    { name: 'http-request', arguments: { url: `${testEnv.fixtures().http.url}/slow?ms=2500` } },
    undefined,
    {
      onprogress: (p) => progress.push(p.progress),
    },
  )) as CallToolResult;
  t.falsy(result.isError, textOf(result));
  t.true(progress.length >= 1, `${progress.length} notifications`);
  t.deepEqual(
    progress,
    [...progress].sort((a, b) => a - b),
    'progress only grows',
  );
});

test('HTTP: no key is 401, a foreign Origin 403, GET 405, no event stream 406, each problem+json', async (t) => {
  const account = await newAccount(1);
  const init = {
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  };
  const body = { jsonrpc: '2.0', id: 1, ...init };
  const accept = { accept: 'application/json, text/event-stream' };

  const ok = await request('POST', '/mcp', { token: account.apiKey, body, headers: accept });
  t.is(ok.status, 200);
  t.regex(ok.headers.get('x-request-id') ?? '', /^req_/);
  t.regex(ok.headers.get('mcp-session-id') ?? '', /^mcs_/, 'a session, for cancellations (test/mcp/mcp-cancel.test.ts)');

  const anonymous = await request('POST', '/mcp', { body, headers: accept });
  t.true(isProblem(anonymous, 401, 'unauthorized'));
  // Where OAuth begins (RFC 9728): test/mcp/oauth.test.ts follows it.
  t.regex(anonymous.headers.get('www-authenticate')!, /^Bearer resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/);

  const foreign = await request('POST', '/mcp', { token: account.apiKey, body, headers: { ...accept, origin: 'https://evil.example' } });
  t.true(isProblem(foreign, 403, 'csrf_rejected'));

  const jsonOnly = await request('POST', '/mcp', { token: account.apiKey, body, headers: { accept: 'application/json' } });
  t.true(isProblem(jsonOnly, 406, 'not_acceptable'), JSON.stringify(jsonOnly.body));

  const get = await request('GET', '/mcp', { token: account.apiKey, headers: accept });
  t.true(isProblem(get, 405, 'method_not_allowed'));
  t.is(get.headers.get('allow'), 'POST, DELETE');

  const owner = await request('POST', '/mcp', { token: account.ownerToken, body, headers: accept });
  t.true(isProblem(owner, 403, 'forbidden'), 'an owner token manages the account; it calls no tool');
});

test("docs/MCP.md's tool table is the catalogue: every tool, its cost and its hints", (t) => {
  const doc = readFileSync(new URL('../../docs/MCP.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| `([a-z0-9-]+)` \| ([^|]+) \| [^|]+ \| (\d+) \| (yes|no) \| (yes|no) \|$/gm)];
  const documented = rows.map(([, name, title, cost, readOnly, openWorld]) => ({
    name,
    title: title!.trim(),
    cost: Number(cost),
    readOnly,
    openWorld,
  }));
  const expected = [...CATALOGUE.values()].map((tool) => ({
    name: tool.name,
    title: toolTitle(tool.name),
    cost: tool.cost,
    readOnly: toolHints(tool).readOnlyHint ? 'yes' : 'no',
    openWorld: toolHints(tool).openWorldHint ? 'yes' : 'no',
  }));
  t.deepEqual(documented, expected);
});
