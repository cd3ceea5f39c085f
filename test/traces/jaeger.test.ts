//! One trace per call, read back from Jaeger's query API (`npm run test:traces` runs one beside the
//! stack, whose apps trace every call: scripts/stack/test-stack.ts): a screenshot and a bcrypt-hash call each make one tree
//! from the HTTP request through the workflow start, the workflow and its step to the ledger and
//! the tool (a capture's navigation and capture in Chromium inside it), with no key or password in
//! any attribute or event, nor an agent's OAuth token; a failed call's trace marks the failing spans
//! with the problem's code.
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { callTool, newAccount, request, type Answer } from '../helpers/api.js';
import { withTemporalClient } from '../helpers/temporal.js';
import { eventually, registerEndpoint, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { startBrowserPages } from '../fixtures/browser-pages.js';
import { closedPort, type PageServer } from '../fixtures/http-pages.js';
import { startFileServer, type FileServer } from '../fixtures/file-server.js';
import { makeDocx } from '../fixtures/documents.js';
import { client, serviceOrigin, signUp } from '../helpers/people.js';
import { connectApp, registerApp, tokenRequest } from '../helpers/oauth.js';

/** The API's and workers' batch exporters send within seconds; a trace not complete by then is not coming. */
const TRACE_WAIT_MS = 60_000;

interface JaegerSpan {
  spanID: string;
  operationName: string;
  references: Array<{ refType: string; traceID: string; spanID: string }>;
  tags: Array<{ key: string; value: unknown }>;
  logs: Array<{ fields: Array<{ key: string; value: unknown }> }>;
  processID: string;
}
interface JaegerTrace {
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string; tags: Array<{ key: string; value: unknown }> }>;
}

let pages: PageServer;
let files: FileServer;
let receiver: Receiver;
let jaeger: string;

test.before(async () => {
  [pages, files, receiver] = await Promise.all([startBrowserPages(), startFileServer(), startReceiver()]);
});
test.after.always(async () => {
  await Promise.all([pages?.close(), files?.close(), receiver?.close()]);
});

/** The stack's Jaeger (scripts/test.mjs --traces starts it before the apps). */
function jaegerUp(): string {
  const url = process.env.JAEGER_QUERY_URL;
  if (!url) throw new Error('no JAEGER_QUERY_URL: run this suite with `npm run test:traces`');
  return url;
}

/** The trace id of an answer's `traceparent`. */
function traceIdOf(res: Answer): string {
  const header = res.headers.get('traceparent') ?? '';
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(header);
  if (!match) throw new Error(`no sampled traceparent on the answer: "${header}"`);
  return match[1]!;
}

/** The trace once every span `complete` wants is in it. */
async function traceOf(traceId: string, complete: (t: JaegerTrace) => boolean): Promise<JaegerTrace> {
  const deadline = Date.now() + TRACE_WAIT_MS;
  let last: JaegerTrace | undefined;
  for (;;) {
    const res = await fetch(`${jaeger}/api/traces/${traceId}`);
    if (res.ok) {
      last = ((await res.json()) as { data: JaegerTrace[] }).data[0];
      if (last && complete(last)) return last;
    } else await res.arrayBuffer();
    if (Date.now() > deadline)
      throw new Error(
        `trace ${traceId} incomplete after ${TRACE_WAIT_MS / 1000} s: ${last ? last.spans.map((s) => s.operationName).join(', ') : 'not found'}`,
      );
    await sleep(500);
  }
}

/** The traces a search of Jaeger's query API finds (service, operation and tags), once `found` holds. */
async function search(query: Record<string, string>, found: (ts: JaegerTrace[]) => boolean): Promise<JaegerTrace[]> {
  return eventually(
    async () => {
      const res = await fetch(`${jaeger}/api/traces?${new URLSearchParams({ limit: '20', lookback: '1h', ...query })}`);
      return res.ok ? ((await res.json()) as { data: JaegerTrace[] }).data : [];
    },
    found,
    TRACE_WAIT_MS,
    `traces of ${JSON.stringify(query)}`,
  );
}

const names = (t: JaegerTrace) => t.spans.map((s) => s.operationName);
const tag = (span: JaegerSpan, key: string) => span.tags.find((x) => x.key === key)?.value;
const byName = (t: JaegerTrace, name: string) => t.spans.find((s) => s.operationName === name);
/** What a call's trace has, in this order down the tree: request, start, workflow, step, its parts. */
const callSpans = (tool: string) => [
  'POST /api/v1/tools/:tool',
  'StartWorkflow:toolCall',
  'RunWorkflow:toolCall',
  'StartActivity:callStep',
  'RunActivity:callStep',
  'ledger reserve',
  `tool ${tool}`,
];
const hasAll = (wanted: string[]) => (t: JaegerTrace) => wanted.every((name) => names(t).includes(name));

/** Each span's parent is in the trace, and exactly one span (the HTTP request's) has none. */
function assertOneTree(t: import('ava').ExecutionContext, trace: JaegerTrace) {
  const ids = new Set(trace.spans.map((s) => s.spanID));
  const roots = trace.spans.filter((s) => !s.references.some((r) => r.refType === 'CHILD_OF'));
  t.deepEqual(
    roots.map((s) => s.operationName),
    ['POST /api/v1/tools/:tool'],
    'one root: the HTTP request',
  );
  for (const span of trace.spans) {
    for (const ref of span.references.filter((r) => r.refType === 'CHILD_OF'))
      t.true(ids.has(ref.spanID), `${span.operationName}'s parent is in the trace`);
  }
}

/** The parent chain of a span, by name, up to the root. */
function ancestry(trace: JaegerTrace, name: string): string[] {
  const byId = new Map(trace.spans.map((s) => [s.spanID, s]));
  const chain: string[] = [];
  for (let span = byName(trace, name); span; span = byId.get(span.references.find((r) => r.refType === 'CHILD_OF')?.spanID ?? ''))
    chain.push(span.operationName);
  return chain;
}

/** The spans whose parent is the span named `name`. */
function childrenOf(trace: JaegerTrace, name: string): JaegerSpan[] {
  const parent = byName(trace, name)?.spanID;
  return trace.spans.filter((s) => s.references.some((r) => r.refType === 'CHILD_OF' && r.spanID === parent));
}

/** Every attribute, event field and process tag of the trace, as one text. */
const everything = (trace: JaegerTrace) =>
  JSON.stringify([trace.spans.map((s) => [s.operationName, s.tags, s.logs]), Object.values(trace.processes)]);

test.serial('a screenshot call and a bcrypt-hash call are one tree each, request to tool, with no key or password anywhere', async (t) => {
  jaeger = jaegerUp();
  const account = await newAccount(100);
  const password = `correct horse ${Date.now()} battery`;

  const shot = await callTool(account.apiKey, 'website-screenshot', { url: pages.url('/browser/colourful') });
  t.is(shot.status, 200);
  const hash = await callTool(account.apiKey, 'bcrypt-hash', { password, workFactor: 4 });
  t.is(hash.status, 200);

  for (const [res, tool] of [
    [shot, 'website-screenshot'],
    [hash, 'bcrypt-hash'],
  ] as const) {
    const inTool = tool === 'website-screenshot' ? ['chromium navigate', 'chromium capture'] : [];
    const trace = await traceOf(traceIdOf(res), hasAll([...callSpans(tool), 'ledger commit', ...inTool]));
    assertOneTree(t, trace);
    for (const name of inTool) t.is(ancestry(trace, name)[1], `tool ${tool}`, `${name} is the tool's`);
    t.deepEqual(
      ancestry(trace, `tool ${tool}`),
      [`tool ${tool}`, ...callSpans(tool).slice(0, 5).reverse()],
      `${tool}: tool < step < workflow < start < request`,
    );
    t.deepEqual(ancestry(trace, 'ledger commit').slice(1), callSpans(tool).slice(0, 5).reverse(), `${tool}: the commit is the step's`);
    const request = byName(trace, 'POST /api/v1/tools/:tool')!;
    t.like(Object.fromEntries(request.tags.map((x) => [x.key, x.value])), {
      'http.route': '/api/v1/tools/:tool',
      'http.response.status_code': 200,
      'utility_tools.account_id': account.id,
      'utility_tools.tool': tool,
      'utility_tools.request_id': res.headers.get('x-request-id'),
    });
    const services = new Set(trace.spans.map((s) => trace.processes[s.processID]!.serviceName));
    t.deepEqual([...services].sort(), ['utility-tools-api', 'utility-tools-worker'], `${tool}: the API's and the workers' spans`);
    const memo = await withTemporalClient(
      async (client) => (await client.workflow.getHandle(res.headers.get('x-request-id')!).describe()).memo,
    );
    t.is(memo?.traceId, traceIdOf(res), `${tool}: the workflow's memo names its trace`);
    const reserveDb = childrenOf(trace, 'ledger reserve').filter((s) => tag(s, 'db.system') === 'mongodb');
    t.true(reserveDb.length > 0, `${tool}: the reserve's database operations`);
    t.true(
      childrenOf(trace, 'ledger commit').some((s) => tag(s, 'db.system') === 'mongodb'),
      `${tool}: the commit's database operations`,
    );
    for (const op of reserveDb) t.truthy(tag(op, 'db.collection.name'), `${op.operationName} names its collection`);
    const text = everything(trace);
    t.false(text.includes(account.apiKey), `${tool}: no API key`);
    t.false(text.includes(account.ownerToken), `${tool}: no owner token`);
    t.false(text.includes(password), `${tool}: no password`);
  }
});

test.serial("an SMTP check's trace has its upstream connection (host, checked address) and no SMTP credential anywhere", async (t) => {
  jaeger = jaegerUp();
  const account = await newAccount(100);
  // Port 25 of the fixture address is kept closed (test/tools/smtp-test-sessions.test.ts serves the others):
  // the credentials travel with the call to the worker, and the connection is refused there.
  const [username, password] = ['trace-user', `smtp secret ${Date.now()}`];
  const res = await callTool(account.apiKey, 'smtp-test', { host: '127.0.0.2', port: 25, username, password });
  t.is(res.status, 502);

  const trace = await traceOf(traceIdOf(res), hasAll([...callSpans('smtp-test'), 'ledger refund', 'upstream connection']));
  assertOneTree(t, trace);
  const connection = byName(trace, 'upstream connection')!;
  t.is(ancestry(trace, 'upstream connection')[1], 'tool smtp-test');
  t.is(tag(connection, 'server.address'), '127.0.0.2');
  t.is(tag(connection, 'server.port'), 25);
  t.is(tag(connection, 'network.peer.address'), '127.0.0.2', 'the address the guard checked');
  t.is(tag(connection, 'utility_tools.problem.code'), 'upstream_error');
  const text = everything(trace);
  for (const secret of [password, username, account.apiKey])
    t.false(text.includes(secret), `no ${secret === account.apiKey ? 'API key' : 'SMTP credential'}`);
});

test.serial("a failed call's trace marks the failing navigation and the tool's span with the problem's code", async (t) => {
  jaeger = jaegerUp();
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, 'website-screenshot', { url: `http://127.0.0.2:${await closedPort()}/` });
  t.is(res.status, 502);
  t.is(res.body.code, 'upstream_error');
  t.is(res.body.traceId, traceIdOf(res), 'the problem names its trace');

  const trace = await traceOf(res.body.traceId, hasAll([...callSpans('website-screenshot'), 'ledger refund', 'chromium navigate']));
  assertOneTree(t, trace);
  const navigation = byName(trace, 'chromium navigate')!;
  t.is(tag(navigation, 'utility_tools.problem.code'), 'upstream_error', 'the navigation that failed');
  t.is(tag(navigation, 'otel.status_code'), 'ERROR');
  const tool = byName(trace, 'tool website-screenshot')!;
  t.is(tag(tool, 'utility_tools.problem.code'), 'upstream_error');
  t.is(tag(tool, 'otel.status_code'), 'ERROR');
  t.is(tag(byName(trace, 'POST /api/v1/tools/:tool')!, 'utility_tools.problem.code'), 'upstream_error');
  t.false(names(trace).includes('ledger commit'), 'refunded, not charged');
});

test.serial("a conversion's trace has LibreOffice's conversion inside its tool", async (t) => {
  jaeger = jaegerUp();
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, 'word-to-pdf', {
    fileUrl: files.put('/traced/letter.docx', await makeDocx(['A traced letter'])),
  });
  t.is(res.status, 200);
  const trace = await traceOf(traceIdOf(res), hasAll([...callSpans('word-to-pdf'), 'ledger commit', 'libreoffice convert']));
  assertOneTree(t, trace);
  t.is(ancestry(trace, 'libreoffice convert')[1], 'tool word-to-pdf');
  t.is(tag(byName(trace, 'libreoffice convert')!, 'utility_tools.document_type'), 'docx');
  const download = childrenOf(trace, 'tool word-to-pdf').find((s) => s.operationName === 'upstream http');
  t.like(
    Object.fromEntries((download?.tags ?? []).map((x) => [x.key, x.value])),
    { 'http.response.status_code': 200, 'network.peer.address': '127.0.0.2' },
    "the source's download: its status and the checked address",
  );
  t.true(Number(tag(download!, 'http.response.body.size')) > 0, 'and the bytes it read');
});

test.serial(
  'an asynchronous call continues the trace of its 202; its call.completed delivery is a trace of its own, linked to it, with no signing secret',
  async (t) => {
    jaeger = jaegerUp();
    const account = await newAccount(100);
    const endpoint = await registerEndpoint(account, receiver.url('/traced'), ['call.completed']);
    const started = await callTool(account.apiKey, 'hash-text', { text: 'traced later', algorithm: 'sha256' }, { prefer: 'respond-async' });
    t.is(started.status, 202);
    const traceId = traceIdOf(started);
    const call = await traceOf(traceId, hasAll([...callSpans('hash-text'), 'ledger commit']));
    assertOneTree(t, call);
    t.is(tag(byName(call, 'POST /api/v1/tools/:tool')!, 'http.response.status_code'), 202);
    t.deepEqual(ancestry(call, 'tool hash-text').slice(1), callSpans('hash-text').slice(0, 5).reverse(), "the tool ran in the 202's trace");

    await receiver.waitFor((all) => all.some((d) => d.path === '/traced'), TRACE_WAIT_MS, 'the call.completed delivery');
    const [delivery] = await search(
      {
        service: 'utility-tools-worker',
        operation: 'webhook delivery',
        tags: JSON.stringify({ 'utility_tools.webhook_endpoint_id': endpoint.id }),
      },
      (ts) => ts.some((x) => byName(x, 'upstream http')),
    );
    const root = byName(delivery!, 'webhook delivery')!;
    t.false(
      root.references.some((r) => r.refType === 'CHILD_OF'),
      'a trace of its own',
    );
    t.like(Object.fromEntries(root.tags.map((x) => [x.key, x.value])), {
      'utility_tools.event': 'call.completed',
      'utility_tools.delivery.outcome': 'delivered',
      'http.response.status_code': 200,
    });
    const link = root.references.find((r) => r.refType === 'FOLLOWS_FROM');
    t.is(link?.traceID, traceId, "linked to the call's trace");
    await traceOf(traceId, (x) => x.spans.some((s) => s.spanID === link?.spanID)); // the linked span is the call's
    t.is(ancestry(delivery!, 'upstream http')[1], 'webhook delivery');
    t.false(everything(delivery!).includes(endpoint.secret.slice(6)), 'no signing secret');
  },
);

test.serial("a batch's items are children of the request that made it", async (t) => {
  jaeger = jaegerUp();
  const account = await newAccount(100);
  const res = await request('POST', '/api/v1/batches', {
    token: account.apiKey,
    body: { tool: 'hash-text', items: [{ text: 'one' }, { text: 'two' }], defaults: { algorithm: 'sha256' } },
  });
  t.is(res.status, 202, JSON.stringify(res.body));
  const itemsDone = (x: JaegerTrace) => names(x).filter((n) => n === 'ledger commit').length === 2;
  const trace = await traceOf(traceIdOf(res), itemsDone);
  const ids = new Set(trace.spans.map((s) => s.spanID));
  const roots = trace.spans.filter((s) => !s.references.some((r) => r.refType === 'CHILD_OF' && ids.has(r.spanID)));
  t.deepEqual(
    roots.map((s) => s.operationName),
    ['POST /api/v1/batches'],
    "one tree, rooted at the batch's request (the runner, which outlives it, is not in it)",
  );
  const tools = trace.spans.filter((s) => s.operationName === 'tool hash-text');
  t.is(tools.length, 2, "each item's tool");
  const byId = new Map(trace.spans.map((s) => [s.spanID, s]));
  for (const tool of tools) {
    const chain: string[] = [];
    for (
      let span: JaegerSpan | undefined = tool;
      span;
      span = byId.get(span.references.find((r) => r.refType === 'CHILD_OF')?.spanID ?? '')
    )
      chain.push(span.operationName);
    t.deepEqual(
      chain.slice(-3),
      ['RunWorkflow:toolCall', 'StartWorkflow:toolCall', 'POST /api/v1/batches'],
      `an item: ${chain.join(' < ')}`,
    );
  }
});

test.serial("an agent's OAuth tokens are in no trace: the token requests' and its MCP tool call's", async (t) => {
  jaeger = jaegerUp();
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
