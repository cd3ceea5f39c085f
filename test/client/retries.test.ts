//! The client's retry rules against the real stack, seen through a local proxy that records every
//! request and, where a test asks, breaks one: a connection dropped after the service answered is
//! retried with the same Idempotency-Key (one charge, one answer); 429 and 503 are waited out as
//! the answer says; any other 4xx is thrown at once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { UtilityTools, UtilityToolsError } from 'utility-tools/client';
import { apiUrl, newAccount, type TestAccount } from '../helpers/api.js';

interface Seen {
  method: string;
  path: string;
  key: string | undefined;
  status: number | 'dropped';
}

/** What the proxy does to the next request whose path starts with `path` (and carries `key`, when given). */
type Fault = { path: string; key?: string; action: 'drop-after-answer' | '503'; retryAfter?: number };

async function startProxy() {
  const seen: Seen[] = [];
  const faults: Fault[] = [];
  const upstream = new URL(apiUrl());
  const server = http.createServer((req, res) => {
    const entry: Seen = { method: req.method!, path: req.url!, key: req.headers['idempotency-key'] as string | undefined, status: 0 };
    seen.push(entry);
    const i = faults.findIndex((f) => req.url!.startsWith(f.path) && (f.key === undefined || f.key === entry.key));
    const fault = i >= 0 ? faults.splice(i, 1)[0] : undefined;
    if (fault?.action === '503') {
      req.resume();
      entry.status = 503;
      res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': String(fault.retryAfter ?? 1) });
      res.end(
        JSON.stringify({
          type: 'about:blank',
          title: 'Unavailable',
          status: 503,
          detail: 'The proxy is restarting.',
          code: 'unavailable',
          requestId: 'proxy',
        }),
      );
      return;
    }
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        if (fault?.action === 'drop-after-answer') {
          // The service has done the call; the caller never hears of it.
          entry.status = 'dropped';
          answer.resume();
          req.socket.destroy();
          return;
        }
        entry.status = answer.statusCode!;
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => req.socket.destroy());
    req.pipe(forward);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, faults, close: () => new Promise((resolve) => server.close(resolve)) };
}

let proxy: Awaited<ReturnType<typeof startProxy>>;
test.before(async () => {
  proxy = await startProxy();
});
test.after.always(() => proxy?.close());

const toolCalls = (tool: string, key?: string) =>
  proxy.seen.filter((s) => s.path === `/api/v1/tools/${tool}` && (key === undefined || s.key === key));

/** A client of `account`'s through the proxy that retries soon (50 ms), so the tests do not wait out the default backoff. */
const quickRetrying = (account: TestAccount) =>
  new UtilityTools({ baseUrl: proxy.url, apiKey: account.apiKey, ownerToken: account.ownerToken, retry: { initialDelayMs: 50 } });

test('a connection dropped after the service answered is retried with the same key: one charge, one answer', async (t) => {
  const account = await newAccount(100);
  const client = quickRetrying(account);
  proxy.faults.push({ path: '/api/v1/tools/bcrypt-hash', key: 'client-retry-drop-1', action: 'drop-after-answer' });
  const out = await client.tools.bcryptHash({ password: 'dropped once', workFactor: 4 }, { idempotencyKey: 'client-retry-drop-1' });
  t.regex(out.hash, /^\$2[aby]\$04\$/);
  t.true(out.replayed, "the second attempt got the first call's stored answer");
  const attempts = toolCalls('bcrypt-hash', 'client-retry-drop-1');
  t.deepEqual(
    attempts.map((a) => a.status),
    ['dropped', 200],
  );
  t.is(out.charged, 2);
  t.is(out.balance, 98);
  t.is((await client.account.get()).balance, 98);
  const usage = await client.account.usage();
  t.is(usage.items.filter((i) => i.tool === 'bcrypt-hash').length, 1);
});

test('without a key given, the client sends one of its own and keeps it across attempts', async (t) => {
  const account = await newAccount(100);
  const client = quickRetrying(account);
  proxy.faults.push({ path: '/api/v1/tools/qr-generate', action: 'drop-after-answer' });
  const before = proxy.seen.length;
  const out = await client.tools.qrGenerate({ text: 'dropped once' });
  const attempts = proxy.seen.slice(before).filter((s) => s.path === '/api/v1/tools/qr-generate');
  // The dropped answer, then one retry or more (a busy service may also answer a retryable 503 first): one key throughout.
  t.true(attempts.length >= 2, `attempts: ${attempts.map((a) => a.status).join(', ')}`);
  t.is(attempts[0]!.status, 'dropped');
  t.truthy(attempts[0]!.key);
  t.true(attempts.every((a) => a.key === attempts[0]!.key));
  t.is((await client.account.get()).balance, 100 - out.charged, 'charged once');
});

test('503 is retried after its Retry-After with the same key', async (t) => {
  const account = await newAccount(100);
  const client = new UtilityTools({ baseUrl: proxy.url, apiKey: account.apiKey, ownerToken: account.ownerToken });
  proxy.faults.push({ path: '/api/v1/tools/hash-text', key: 'client-retry-503', action: '503' });
  const started = Date.now();
  const out = await client.tools.hashText({ text: 'after a 503' }, { idempotencyKey: 'client-retry-503' });
  t.true(Date.now() - started >= 1000, 'waited the second Retry-After asked for');
  t.deepEqual(
    toolCalls('hash-text', 'client-retry-503').map((a) => a.status),
    [503, 200],
  );
  t.is(out.balance, 99);
});

test('429 from the rate limit is waited out: every read of a burst over the limit answers', async (t) => {
  const account = await newAccount(10);
  const statuses: number[] = [];
  // Straight to the service (a proxy would slow the burst), counting what each attempt got.
  const counting: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    statuses.push(res.status);
    return res;
  };
  const client = new UtilityTools({ baseUrl: apiUrl(), apiKey: account.apiKey, fetch: counting });
  // The stack allows 60 a second with a burst of twice that, per account: bursts until one passes it.
  let answered = 0;
  for (let round = 0; round < 5 && !statuses.includes(429); round++) {
    const pages = await Promise.all(Array.from({ length: 300 }, () => client.calls.list({ limit: 1 })));
    answered += pages.length;
  }
  t.true(statuses.includes(429), 'a burst passed the limit');
  t.is(statuses.filter((s) => s === 200).length, answered, 'every call answered 200 in the end');
});

test('a 4xx other than 429 is thrown at once, typed, without a retry', async (t) => {
  const account = await newAccount(0);
  const client = new UtilityTools({ baseUrl: proxy.url, apiKey: account.apiKey });
  const poor = await t.throwsAsync(client.tools.bcryptHash({ password: 'pw' }, { idempotencyKey: 'client-402' }), {
    instanceOf: UtilityToolsError,
  });
  t.like(poor, { status: 402, code: 'insufficient_credits', balance: 0, cost: 2 });
  t.is(toolCalls('bcrypt-hash', 'client-402').length, 1);

  const invalid = await t.throwsAsync(client.tools.hashText({ text: 'x', algorithm: 'crc32' as 'md5' }, { idempotencyKey: 'client-400' }), {
    instanceOf: UtilityToolsError,
  });
  t.like(invalid, { status: 400, code: 'validation_failed' });
  t.deepEqual(
    invalid!.errors?.map((e) => e.field),
    ['/algorithm'],
  );
  t.is(toolCalls('hash-text', 'client-400').length, 1);
});

test('a request that cannot be repeated safely is not sent twice after a network failure', async (t) => {
  const account = await newAccount(10);
  const client = new UtilityTools({ baseUrl: proxy.url, ownerToken: account.ownerToken, retry: { initialDelayMs: 50 } });
  proxy.faults.push({ path: '/api/v1/account/keys', action: 'drop-after-answer' });
  const before = proxy.seen.length;
  const err = await t.throwsAsync(client.account.keys.create({ name: 'once' }), { instanceOf: UtilityToolsError });
  t.like(err, { status: 0, code: 'network_error' });
  t.is(proxy.seen.slice(before).filter((s) => s.method === 'POST' && s.path === '/api/v1/account/keys').length, 1);
});

test('a wait that would pass the deadline is not waited: the answer is thrown', async (t) => {
  const client = new UtilityTools({ baseUrl: proxy.url, apiKey: 'utk_unused', retry: { deadlineMs: 60_000 } });
  proxy.faults.push({ path: '/api/v1/calls', action: '503', retryAfter: 3600 });
  const err = await t.throwsAsync(client.calls.list(), { instanceOf: UtilityToolsError });
  t.like(err, { status: 503, code: 'unavailable', retryAfter: 3600 });
  t.is(proxy.seen.filter((s) => s.path.startsWith('/api/v1/calls')).length, 1);
});
