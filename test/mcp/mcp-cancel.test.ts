//! A client's cancellation of a tool call over MCP, through the SDK's own client against the
//! running stack: the session the server issues on initialize scopes the request ids, a
//! `notifications/cancelled` cancels the call's workflow (CANCELLED in Temporal), stops the tool
//! (its fetch is cut) and charges nothing, and the cancelled request's HTTP answer ends without a
//! response. A cancellation that comes after the call was charged changes nothing; one sent with
//! another credential (its own session, or the caller's session id) reaches nothing; a repeat of
//! the cancelled call's idempotency key answers `cancelled` without running it again; a session
//! ended with DELETE is unknown after. The tool waits on a page this file holds open until told,
//! so nothing depends on how fast anything runs.
import test, { type ExecutionContext } from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { apiUrl, balanceOf, isProblem, newAccount, request, type TestAccount, type UncheckedJson } from '../helpers/api.js';
import { withTemporalClient } from '../helpers/temporal.js';
import { startPageServer, type PageServer } from '../fixtures/http-pages.js';

/** A page that answers only when released, telling when a request arrived and when its connection closed. */
interface HeldPage {
  server: PageServer;
  url: string;
  arrived: Promise<void>;
  closed: Promise<void>;
  release(): void;
}

async function heldPage(t: ExecutionContext): Promise<HeldPage> {
  let arrive!: () => void;
  let close!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const closed = new Promise<void>((resolve) => (close = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = await startPageServer({
    routes: {
      '/held': async (req, res) => {
        req.socket.on('close', close);
        arrive();
        await Promise.race([released, closed]);
        if (!res.destroyed) res.end('released');
      },
    },
  });
  t.teardown(async () => {
    release();
    await server.close();
  });
  return { server, url: server.url('/held'), arrived, closed, release };
}

interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** The JSON-RPC ids of the tools/call requests sent, in order. */
  callIds: Array<string | number>;
  /** How many answers' event streams have ended (their bodies read to the end). */
  streamsEnded: number;
  errors: unknown[];
}

async function connect(t: ExecutionContext, key: string): Promise<Connected> {
  const connected: Connected = {
    client: new Client({ name: 'cancel-test', version: '1.0.0' }),
    callIds: [],
    streamsEnded: 0,
    errors: [],
  } as never;
  // Counts the event streams that end, to see the cancelled request's answer end on its own.
  const counting: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (!res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return res;
    const body = res.body.pipeThrough(
      new TransformStream({
        flush: () => {
          connected.streamsEnded += 1;
        },
      }),
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  connected.transport = new StreamableHTTPClientTransport(new URL(`${apiUrl()}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
    fetch: counting,
  });
  const send = connected.transport.send.bind(connected.transport);
  connected.transport.send = (message: JSONRPCMessage, options) => {
    if ('method' in message && message.method === 'tools/call' && 'id' in message) connected.callIds.push(message.id);
    return send(message, options);
  };
  connected.client.onerror = (err) => connected.errors.push(err);
  await connected.client.connect(connected.transport);
  t.teardown(() => connected.client.close());
  return connected;
}

/** The account's usage entries, newest first. */
async function usage(account: TestAccount): Promise<UncheckedJson[]> {
  const res = await request('GET', '/api/v1/account/usage?limit=20', { token: account.ownerToken });
  if (res.status !== 200) throw new Error(`could not read usage: ${res.status}`);
  return res.body.items;
}

/** Waits for `check` to give a value: what the stack does after an answer it does not wait for. Bounded only so a failure ends. */
async function eventually<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  const until = Date.now() + 60_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const workflowStatus = (workflowId: string) =>
  withTemporalClient(async (client) => (await client.workflow.getHandle(workflowId).describe()).status.name);

/** Waits for the call's workflow to end, and says how. */
const endedStatus = (workflowId: string) =>
  eventually(async () => {
    const status = await workflowStatus(workflowId);
    return status === 'RUNNING' ? undefined : status;
  }, `${workflowId} ends`);

const held = (client: Client, url: string, options: { signal?: AbortSignal; meta?: Record<string, unknown> } = {}) =>
  client.callTool({ name: 'http-request', arguments: { url }, ...(options.meta ? { _meta: options.meta } : {}) }, undefined, {
    signal: options.signal,
  }) as Promise<CallToolResult>;

const cancelled = (connected: Connected, requestId: string | number) =>
  connected.client.notification({ method: 'notifications/cancelled', params: { requestId, reason: 'the test changed its mind' } });

test('cancellation: the workflow is cancelled, the tool stops, nothing is charged, the answer ends without a response', async (t) => {
  const account = await newAccount(10);
  const page = await heldPage(t);
  const mcp = await connect(t, account.apiKey);
  t.regex(mcp.transport.sessionId ?? '', /^mcs_[A-Za-z0-9]{32}$/, 'initialize issued a session');
  const before = await balanceOf(account);

  const abort = new AbortController();
  const calling = held(mcp.client, page.url, { signal: abort.signal });
  await page.arrived; // the tool is running: its request is at the page
  const streamsBefore = mcp.streamsEnded;
  abort.abort('the test changed its mind');
  await t.throwsAsync(calling, { message: /the test changed its mind/ });

  await page.closed; // the tool's fetch was cut: its work stopped
  const entry = await eventually(async () => (await usage(account)).find((e) => e.tool === 'http-request'), 'the call is settled');
  t.like(entry, { outcome: 'refunded', credits: 0, via: 'mcp' });
  t.is(await endedStatus(entry.requestId), 'CANCELLED');
  t.is(await balanceOf(account), before, 'nothing charged');
  t.deepEqual(
    (await usage(account)).filter((e) => e.outcome === 'charged'),
    [],
  );
  // The cancelled request's event stream ended, with no response in it (the client would have
  // reported a response to a request it no longer knows).
  await eventually(async () => (mcp.streamsEnded > streamsBefore ? true : undefined), "the cancelled request's answer ends");
  t.deepEqual(mcp.errors, []);
  t.is(page.server.requests.length, 1, 'the tool ran once');

  // The session goes on: the next call runs and is charged.
  const next = (await mcp.client.callTool({ name: 'hash-text', arguments: { text: 'after' } })) as CallToolResult;
  t.falsy(next.isError, JSON.stringify(next));
  t.is(await balanceOf(account), before - 1);
});

test('a cancellation after the call was charged changes nothing: the call stands, charged once', async (t) => {
  const account = await newAccount(10);
  const mcp = await connect(t, account.apiKey);
  const result = (await mcp.client.callTool({ name: 'hash-text', arguments: { text: 'done' } })) as CallToolResult;
  t.falsy(result.isError, JSON.stringify(result));
  const { requestId } = result._meta as UncheckedJson;
  await cancelled(mcp, mcp.callIds.at(-1)!); // answered 202 once applied: nothing is left to do
  t.is(await workflowStatus(requestId), 'COMPLETED');
  t.is(await balanceOf(account), 9);
  t.like(await usage(account), [{ requestId, outcome: 'charged', credits: 1 }]);
  t.is((await usage(account)).length, 1);
});

test("another key's cancellation reaches nothing: with its own session or the caller's session id, the call runs on and is charged", async (t) => {
  const account = await newAccount(10);
  const page = await heldPage(t);
  const mcp = await connect(t, account.apiKey);
  const keyRes = await request('POST', '/api/v1/account/keys', { token: account.ownerToken, body: { name: 'other' } });
  t.is(keyRes.status, 201);
  const other = await connect(t, keyRes.body.key);
  t.not(other.transport.sessionId, mcp.transport.sessionId);

  const calling = held(mcp.client, page.url);
  await page.arrived;
  const requestId = mcp.callIds.at(-1)!;
  // Its own session: the same JSON-RPC id names no call of it.
  await cancelled(other, requestId);
  // The caller's session id, with the other key: an unknown session, as if none.
  const notification = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'not mine' } };
  const stolen = await request('POST', '/mcp', {
    token: keyRes.body.key,
    body: notification,
    headers: {
      accept: 'application/json, text/event-stream',
      'mcp-session-id': mcp.transport.sessionId!,
      'mcp-protocol-version': '2025-11-25',
    },
  });
  t.true(isProblem(stolen, 404, 'not_found'), JSON.stringify(stolen.body));
  // Nor can the other key end the caller's session.
  const ended = await request('DELETE', '/mcp', { token: keyRes.body.key, headers: { 'mcp-session-id': mcp.transport.sessionId! } });
  t.true(isProblem(ended, 404, 'not_found'));

  page.release();
  const result = await calling;
  t.falsy(result.isError, JSON.stringify(result));
  t.like(result._meta, { charged: 2 });
  t.is(await workflowStatus((result._meta as UncheckedJson).requestId), 'COMPLETED');
  t.is(await balanceOf(account), 8);
});

test("a repeat of a cancelled call's idempotency key answers `cancelled` and runs nothing again", async (t) => {
  const account = await newAccount(10);
  const page = await heldPage(t);
  const mcp = await connect(t, account.apiKey);
  const meta = { idempotencyKey: `cancel-${account.id}` };
  const abort = new AbortController();
  const calling = held(mcp.client, page.url, { signal: abort.signal, meta });
  await page.arrived;
  abort.abort('stop');
  await t.throwsAsync(calling);
  const entry = await eventually(async () => (await usage(account)).find((e) => e.tool === 'http-request'), 'the call is settled');
  t.is(await endedStatus(entry.requestId), 'CANCELLED');

  const again = await held(mcp.client, page.url, { meta });
  t.true(again.isError, JSON.stringify(again));
  t.like((again._meta as UncheckedJson).problem, { code: 'cancelled', status: 409 });
  t.is(page.server.requests.length, 1, 'the call did not run again');
  t.is(await balanceOf(account), 10);
});

test('DELETE ends the session: a message with its id is then 404, and a new initialize opens another', async (t) => {
  const account = await newAccount(10);
  const mcp = await connect(t, account.apiKey);
  const sessionId = mcp.transport.sessionId!;
  await mcp.transport.terminateSession();
  const list = { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} };
  const after = await request('POST', '/mcp', {
    token: account.apiKey,
    body: list,
    headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
  });
  t.true(isProblem(after, 404, 'not_found'), JSON.stringify(after.body));
  const again = await request('DELETE', '/mcp', { token: account.apiKey, headers: { 'mcp-session-id': sessionId } });
  t.true(isProblem(again, 404, 'not_found'));
  const fresh = await connect(t, account.apiKey);
  t.not(fresh.transport.sessionId, sessionId);
  t.true((await fresh.client.listTools()).tools.length > 0);
});
