//! The call path through HTTP against the running stack: credentials, credits, idempotency,
//! and a problem+json answer on every error path.
import test from 'ava';
import { balanceOf, callTool, isProblem, newAccount, request } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';

const HELLO_SHA256 = '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824';

test('a call answers the unwrapped output with request id and credit headers', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'hash-text', { text: 'hello' });
  t.is(res.status, 200);
  t.deepEqual(res.body, { algorithm: 'sha256', hash: HELLO_SHA256 });
  t.regex(res.headers.get('x-request-id') ?? '', /^call-/);
  t.is(res.headers.get('x-credits-charged'), '1');
  t.is(res.headers.get('x-credits-remaining'), '9');
  t.is(await balanceOf(account), 9);
});

test('401 for a missing, malformed, unknown or revoked key', async (t) => {
  const account = await newAccount(10);
  const missing = await request('POST', '/api/v1/tools/hash-text', { body: { text: 'x' } });
  t.true(isProblem(missing, 401, 'unauthorized'));
  t.is(missing.headers.get('www-authenticate'), 'Bearer');
  t.true(isProblem(await callTool('not-a-key', 'hash-text', { text: 'x' }), 401, 'unauthorized'));
  t.true(isProblem(await callTool(`utk_${'a'.repeat(40)}`, 'hash-text', { text: 'x' }), 401, 'unauthorized'));

  t.is((await callTool(account.apiKey, 'hash-text', { text: 'x' })).status, 200);
  const revoked = await request('DELETE', `/api/v1/account/keys/${account.apiKeyId}`, { token: account.ownerToken });
  t.is(revoked.status, 200);
  t.truthy(revoked.body.revokedAt);
  await new Promise((r) => setTimeout(r, 1_000)); // revocation is visible within 1 s on every instance
  t.true(isProblem(await callTool(account.apiKey, 'hash-text', { text: 'x' }), 401, 'unauthorized'));
});

test('403 when a credential of the wrong kind is used', async (t) => {
  const account = await newAccount(10);
  t.true(isProblem(await callTool(account.ownerToken, 'hash-text', { text: 'x' }), 403, 'forbidden'));
  t.true(isProblem(await request('GET', '/api/v1/account', { token: account.apiKey }), 403, 'forbidden'));
});

test('402 with balance and cost when the balance cannot pay, and nothing is charged', async (t) => {
  const account = await newAccount(1);
  const res = await callTool(account.apiKey, 'bcrypt-hash', { password: 'pw', workFactor: 4 });
  t.true(isProblem(res, 402, 'insufficient_credits'));
  t.is(res.body.balance, 1);
  t.is(res.body.cost, 2);
  t.is(await balanceOf(account), 1);
});

test('a zero balance is refused with 402', async (t) => {
  const account = await newAccount(1);
  t.is((await callTool(account.apiKey, 'hash-text', { text: 'a' })).status, 200);
  const res = await callTool(account.apiKey, 'hash-text', { text: 'a' });
  t.true(isProblem(res, 402, 'insufficient_credits'));
  t.is(res.body.balance, 0);
});

test('an Idempotency-Key repeat replays the first answer and is charged once; another body is 409', async (t) => {
  const account = await newAccount(10);
  const headers = { 'Idempotency-Key': 'order-42' };
  const first = await callTool(account.apiKey, 'hash-text', { text: 'hello' }, headers);
  const again = await callTool(account.apiKey, 'hash-text', { algorithm: 'sha256', text: 'hello' }, headers);
  t.is(first.status, 200);
  t.is(again.status, 200);
  t.deepEqual(again.body, first.body);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.is(first.headers.get('idempotent-replayed'), null);
  t.is(again.headers.get('x-request-id'), first.headers.get('x-request-id'));
  t.is(again.headers.get('x-credits-remaining'), first.headers.get('x-credits-remaining'));
  t.is(await balanceOf(account), 9);

  t.true(isProblem(await callTool(account.apiKey, 'hash-text', { text: 'other' }, headers), 409, 'idempotency_conflict'));
  t.true(isProblem(await callTool(account.apiKey, 'qr-generate', { text: 'hello' }, headers), 409, 'idempotency_conflict'));
  // Keys are per account: another account may use the same key.
  const other = await newAccount(10);
  t.is((await callTool(other.apiKey, 'hash-text', { text: 'other' }, headers)).status, 200);
});

test('concurrent repeats of one Idempotency-Key run and charge one call', async (t) => {
  const account = await newAccount(10);
  const headers = { 'Idempotency-Key': 'burst' };
  const answers = await Promise.all(
    Array.from({ length: 8 }, () => callTool(account.apiKey, 'bcrypt-hash', { password: 'pw', workFactor: 8 }, headers)),
  );
  t.true(answers.every((a) => a.status === 200));
  t.is(new Set(answers.map((a) => a.body.hash)).size, 1);
  t.is(await balanceOf(account), 8);
});

test('100 concurrent calls on a balance that affords 40: exactly 40 succeed, never below zero', async (t) => {
  const account = await newAccount(40);
  const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => callTool(account.apiKey, 'hash-text', { text: `n${i}` })));
  const ok = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => isProblem(a, 402, 'insufficient_credits'));
  t.is(ok.length, 40);
  t.is(refused.length, 60);
  t.true(answers.every((a) => Number(a.headers.get('x-credits-remaining') ?? a.body.balance ?? 0) >= 0));
  t.is(await balanceOf(account), 0);
  const usage = await request('GET', '/api/v1/account/usage?limit=200', { token: account.ownerToken });
  t.is(usage.body.items.filter((i: { outcome: string }) => i.outcome === 'charged').length, 40);
});

test('problem+json on every error path of a tool call', async (t) => {
  const account = await newAccount(10);
  const key = account.apiKey;
  t.true(isProblem(await callTool(key, 'no-such-tool', {}), 404, 'unknown_tool'));
  t.true(isProblem(await request('GET', '/api/v1/tools/hash-text', { token: key }), 405, 'method_not_allowed'));
  t.true(isProblem(await request('GET', '/no/such/path'), 404, 'not_found'));
  /** hash-text called with `rawBody` sent as it is, of type `contentType`. */
  const sent = (rawBody: string, contentType = 'application/json') =>
    request('POST', '/api/v1/tools/hash-text', { token: key, rawBody, headers: { 'content-type': contentType } });
  t.true(isProblem(await sent('{"text":'), 400, 'invalid_json'));
  t.true(isProblem(await sent('[1]'), 400, 'invalid_json'));
  t.true(isProblem(await sent('text=x', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type'));
  t.true(isProblem(await callTool(key, 'hash-text', { text: 'x'.repeat(1024 * 1024 + 10) }), 413, 'payload_too_large'));

  const invalid = await callTool(key, 'hash-text', { algorithm: 'crc32', extra: 1 });
  t.true(isProblem(invalid, 400, 'validation_failed'));
  t.deepEqual(invalid.body.errors.map((e: { field: string }) => e.field).sort(), ['/algorithm', '/extra', '/text']);

  t.true(isProblem(await callTool(key, 'hash-text', { text: 'x' }, { 'Idempotency-Key': '' }), 400, 'validation_failed'));
  t.is(await balanceOf(account), 10); // none of these was charged
});

test('the catalogue lists only working tools with cost, group, pool and input schema', async (t) => {
  const res = await request('GET', '/api/v1/tools');
  t.is(res.status, 200);
  const hash = res.body.tools.find((x: { name: string }) => x.name === 'hash-text');
  t.like(hash, { name: 'hash-text', group: 'hashing', cost: 1, pool: 'cpu', path: '/api/v1/tools/hash-text' });
  t.is(hash.inputSchema.type, 'object');
});

test('health and readiness answer; the metrics answer on METRICS_PORT only, 404 on the public port', async (t) => {
  t.is((await request('GET', '/healthz')).status, 200);
  const ready = await request('GET', '/readyz');
  t.is(ready.status, 200);
  t.deepEqual(ready.body.checks, { database: 'ok', temporal: 'ok' });
  t.true(isProblem(await request('GET', '/metrics'), 404, 'not_found'), 'the public port serves no metrics');
  const metrics = await fetch(`${testEnv.operatorUrl('api')}/metrics`);
  t.is(metrics.status, 200);
  const text = await metrics.text();
  t.regex(text, /^http_request_duration_seconds_count\{/m, "the API's own metrics");
  t.regex(text, /^# TYPE credits_charged_total counter$/m);
  t.regex(text, /^temporal_request_total\{/m, "its Temporal client's SDK metrics, passed through");
});

test('an account over its rate gets 429 with Retry-After and RateLimit headers', async (t) => {
  const account = await newAccount(10);
  const limit = Number((await request('GET', '/api/v1/account', { token: account.ownerToken })).headers.get('ratelimit-limit'));
  t.true(limit > 0);
  // Waves of three seconds' worth each (the burst is two): however slow this machine serves
  // them, refills cannot keep up.
  let limited: Awaited<ReturnType<typeof request>>[] = [];
  for (let wave = 0; wave < 8 && limited.length === 0; wave++) {
    const answers = await Promise.all(
      Array.from({ length: 3 * limit }, () => request('GET', '/api/v1/account', { token: account.ownerToken })),
    );
    limited = answers.filter((a) => isProblem(a, 429, 'rate_limited'));
  }
  t.true(limited.length > 0);
  t.true(Number(limited[0]!.headers.get('retry-after')) >= 1);
  t.is(limited[0]!.headers.get('ratelimit-remaining'), '0');
});
