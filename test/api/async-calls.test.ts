//! Asynchronous tool calls through HTTP, against the running stack: `Prefer: respond-async`
//! answers 202 at once and GET /api/v1/calls/{id} gives the same output a synchronous call does,
//! charged once; a failure is refunded in full and shows the same problem; a short balance is the
//! same 402 before any 202, and so is a literal address the target guard refuses; the Idempotency-Key gives the same call, running or finished;
//! another account's call is 404; an expired answer is 410 call_expired; call.completed reaches
//! only endpoints subscribed to it; the list is newest first and paged; a synchronous call
//! writes no call record.
import test from 'ava';
import { adminToken, balanceOf, callTool, isProblem, newAccount, request, type UncheckedJson } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { registerEndpoint, sleep } from '../helpers/webhook-receiver.js';
import { ended, getCall } from './support/async-calls.js';
import { receiverForFile } from '../helpers/receiver-for-file.js';
import { closedPort } from '../fixtures/http-pages.js';
import { CATALOGUE } from '../../domain/tools/catalogue.js';
import { publishedToolSchemas } from '../../domain/tools/schemas.js';

const ASYNC = { prefer: 'respond-async' };

const receiver = receiverForFile();

test('respond-async: 202 at once with Location, Preference-Applied and Retry-After; the call then shows the output a synchronous call gives, charged once', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'hash-text', { text: 'async', algorithm: 'sha256' }, ASYNC);
  t.is(res.status, 202);
  const requestId = res.headers.get('x-request-id')!;
  t.regex(requestId, /^call-acc_/);
  t.is(res.headers.get('location'), `/api/v1/calls/${requestId}`);
  t.is(res.headers.get('preference-applied'), 'respond-async');
  t.regex(res.headers.get('retry-after') ?? '', /^\d+$/);
  t.deepEqual(res.body, { requestId, tool: 'hash-text', status: 'running', location: `/api/v1/calls/${requestId}` });
  t.is(res.headers.get('x-credits-charged'), null, 'nothing is charged yet');

  const done = await ended(account, requestId);
  t.is(done.status, 200);
  const sync = await callTool(account.apiKey, 'hash-text', { text: 'async', algorithm: 'sha256' });
  t.like(done.body, { requestId, tool: 'hash-text', status: 'succeeded', charged: 1, code: null });
  t.deepEqual(done.body.output, sync.body, 'the same output as a synchronous call');
  t.true(Date.parse(done.body.completedAt) >= Date.parse(done.body.createdAt));
  t.true(Math.abs(Date.parse(done.body.expiresAt) - Date.parse(done.body.completedAt) - 24 * 3600_000) < 1000);
  t.is(await balanceOf(account), 8, 'each call charged once');
  const usage = await request('GET', '/api/v1/account/usage', { token: account.ownerToken });
  t.true(usage.body.items.some((u: UncheckedJson) => u.requestId === requestId));
});

test('a failed asynchronous call is refunded in full and shows the problem a synchronous call answers', async (t) => {
  const account = await newAccount(30);
  const url = `http://127.0.0.2:${await closedPort()}/`;
  const res = await callTool(account.apiKey, 'broken-links', { url }, ASYNC);
  t.is(res.status, 202);
  const done = await ended(account, res.body.requestId);
  t.like(done.body, { status: 'failed', charged: 0, code: 'upstream_error' });
  t.is(done.body.output, undefined);
  const sync = await callTool(account.apiKey, 'broken-links', { url });
  t.true(isProblem(sync, 502, 'upstream_error'));
  const { requestId: _a, ...problem } = done.body.problem;
  // Each request has its own trace (traceId, when the service traces); the rest is the same.
  const { requestId: _b, traceId: _c, ...expected } = sync.body;
  t.deepEqual(problem, expected, 'the same code, status, type and detail');
  t.is(done.body.problem.requestId, res.body.requestId);
  t.is(await balanceOf(account), 30, 'refunded in full');
});

test('a balance that cannot pay is the same 402 before any 202, and leaves no call behind', async (t) => {
  const account = await newAccount(0);
  const res = await callTool(account.apiKey, 'hash-text', { text: 'x' }, { ...ASYNC, 'idempotency-key': 'poor-1' });
  t.true(isProblem(res, 402, 'insufficient_credits'));
  t.like(res.body, { balance: 0, cost: 1 });
  t.is((await request('GET', '/api/v1/calls', { token: account.apiKey })).body.items.length, 0);
  // The key was given back: once credits arrive, it starts the call.
  await request('POST', `/api/v1/admin/accounts/${account.id}/credits`, { token: adminToken(), body: { amount: 5, reason: 'purchase' } });
  const again = await callTool(account.apiKey, 'hash-text', { text: 'x' }, { ...ASYNC, 'idempotency-key': 'poor-1' });
  t.is(again.status, 202);
  t.is(again.headers.get('idempotent-replayed'), null);
  t.like((await ended(account, again.body.requestId)).body, { status: 'succeeded', charged: 1 });
});

/** Each kind of target field, set to a literal address in a refused range, with the reason it gets. */
const REFUSED_LITERALS: Record<string, [string, string]> = {
  url: ['http://10.0.0.1/admin', 'private'],
  fileUrl: ['http://169.254.169.254/latest/file', 'metadata'],
  host: ['192.168.1.1', 'private'],
};

test('a literal address the guard refuses is the same 422 before any 202, in every tool that reaches a target, and costs nothing', async (t) => {
  const account = await newAccount(100);
  const tools = [...CATALOGUE.values()].filter((tool) => tool.targets);
  t.true(tools.length >= 12, 'every tool that takes a URL or a host declares its targets');
  for (const tool of tools) {
    const input = structuredClone((publishedToolSchemas(tool.name).input as { examples: Record<string, unknown>[] }).examples[0]!);
    const field = Object.keys(REFUSED_LITERALS).find((f) => f in input);
    t.truthy(field, `${tool.name}: a target field in its example`);
    const [value, reason] = REFUSED_LITERALS[field!]!;
    input[field!] = value;
    for (const headers of [ASYNC, {}]) {
      const res = await callTool(account.apiKey, tool.name, input, headers);
      t.true(
        isProblem(res, 422, 'target_not_allowed'),
        `${tool.name} ${JSON.stringify(headers)}: ${res.status} ${JSON.stringify(res.body)}`,
      );
      t.is(res.body.reason, reason, tool.name);
    }
  }
  t.is((await request('GET', '/api/v1/calls', { token: account.apiKey })).body.items.length, 0);
  t.is(await balanceOf(account), 100);
  // The allowlist holds here as in the workers: an allowlisted literal is accepted and fails later.
  const allowed = await callTool(account.apiKey, 'http-request', { url: `http://127.0.0.2:${await closedPort()}/` }, ASYNC);
  t.is(allowed.status, 202);
  t.like((await ended(account, allowed.body.requestId)).body, { status: 'failed', charged: 0 });
});

test('the same Idempotency-Key gives the same asynchronous call, running or finished, charged once; another body is 409', async (t) => {
  const account = await newAccount(10);
  const headers = { ...ASYNC, 'idempotency-key': 'async-idem-1' };
  const first = await callTool(account.apiKey, 'hash-text', { text: 'idem' }, headers);
  const repeat = await callTool(account.apiKey, 'hash-text', { text: 'idem' }, headers);
  t.is(first.status, 202);
  t.is(repeat.status, 202);
  t.is(repeat.body.requestId, first.body.requestId);
  t.is(repeat.headers.get('idempotent-replayed'), 'true');
  await ended(account, first.body.requestId);
  const later = await callTool(account.apiKey, 'hash-text', { text: 'idem' }, headers);
  t.is(later.status, 202);
  t.like(later.body, { requestId: first.body.requestId, status: 'succeeded' });
  // The same key without the preference answers the call's output, synchronously.
  const sync = await callTool(account.apiKey, 'hash-text', { text: 'idem' }, { 'idempotency-key': 'async-idem-1' });
  t.is(sync.status, 200);
  t.deepEqual(sync.body, (await getCall(account, first.body.requestId)).body.output);
  t.true(isProblem(await callTool(account.apiKey, 'hash-text', { text: 'other' }, headers), 409, 'idempotency_conflict'));
  t.is(await balanceOf(account), 9, 'one call, one charge');
  t.is((await request('GET', '/api/v1/calls', { token: account.apiKey })).body.items.length, 1);
});

test("another account's call is 404; unknown ids are 404; the owner token is refused on /calls/{id}", async (t) => {
  const [a, b] = [await newAccount(10), await newAccount(10)];
  const res = await callTool(a.apiKey, 'hash-text', { text: 'mine' }, ASYNC);
  await ended(a, res.body.requestId);
  t.true(isProblem(await getCall(b, res.body.requestId), 404, 'not_found'));
  t.true(isProblem(await getCall(a, 'call-nope'), 404, 'not_found'));
  t.true(isProblem(await request('GET', `/api/v1/calls/${res.body.requestId}`, { token: a.ownerToken }), 403, 'forbidden'));
  t.true(isProblem(await request('GET', `/api/v1/calls/${res.body.requestId}`), 401, 'unauthorized'));
  t.false(
    (await request('GET', '/api/v1/calls', { token: b.apiKey })).body.items.some((c: UncheckedJson) => c.requestId === res.body.requestId),
  );
});

test('past its 24 hours the answer is 410 call_expired, with when it expired', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'hash-text', { text: 'old' }, ASYNC);
  await ended(account, res.body.requestId);
  const expiredAt = new Date(Date.now() - 1000);
  await withServiceDb((db) => db.collection('calls').updateOne({ _id: res.body.requestId }, { $set: { expiresAt: expiredAt } }));
  const old = await getCall(account, res.body.requestId);
  t.true(isProblem(old, 410, 'call_expired'));
  t.is(old.body.expiredAt, expiredAt.toISOString());
  t.is(old.body.output, undefined);
});

test('call.completed goes only to endpoints subscribed to it, with requestId, tool, status and charge but no output; a synchronous call sends none', async (t) => {
  const account = await newAccount(30);
  const subscribed = await registerEndpoint(account, receiver.url('/calls-subscribed'), ['call.completed']);
  await registerEndpoint(account, receiver.url('/calls-default'));
  t.false((subscribed.eventTypes as string[]).includes('credits.low'));
  const ok = await callTool(account.apiKey, 'hash-text', { text: 'hook' }, ASYNC);
  const bad = await callTool(account.apiKey, 'broken-links', { url: `http://127.0.0.2:${await closedPort()}/` }, ASYNC);
  t.is((await callTool(account.apiKey, 'hash-text', { text: 'sync' })).status, 200);
  const all = await receiver.waitFor((ds) => ds.filter((d) => d.path === '/calls-subscribed').length >= 2, 60_000, 'two call.completed');
  const got = all.filter((d) => d.path === '/calls-subscribed');
  const byId = new Map(got.map((d) => [d.body.data.requestId, d.body]));
  t.deepEqual(byId.get(ok.body.requestId)?.data, {
    requestId: ok.body.requestId,
    tool: 'hash-text',
    status: 'succeeded',
    charged: 1,
    code: null,
  });
  t.deepEqual(byId.get(bad.body.requestId)?.data, {
    requestId: bad.body.requestId,
    tool: 'broken-links',
    status: 'failed',
    charged: 0,
    code: 'upstream_error',
  });
  t.true(got.every((d) => d.body.event === 'call.completed'));
  await sleep(3000);
  t.is(receiver.deliveries('/calls-subscribed').length, 2, 'none for the synchronous call, each once');
  t.false(
    receiver.deliveries('/calls-default').some((d) => d.body?.event === 'call.completed'),
    'not to an endpoint on the default types',
  );
  // In the event log too.
  const log = await request('GET', '/api/v1/account/events?type=call.completed', { token: account.ownerToken });
  t.is(log.body.items.length, 2);
});

test('GET /api/v1/calls lists the recent calls newest first, paged; the owner token reads it as /account/calls; a synchronous call is not there', async (t) => {
  const account = await newAccount(10);
  const ids: string[] = [];
  for (const text of ['a', 'b', 'c']) {
    ids.push((await callTool(account.apiKey, 'hash-text', { text }, ASYNC)).body.requestId);
    await sleep(10);
  }
  const sync = await callTool(account.apiKey, 'hash-text', { text: 'sync' });
  for (const id of ids) await ended(account, id);
  const first = await request('GET', '/api/v1/calls?limit=2', { token: account.apiKey });
  t.deepEqual(
    first.body.items.map((c: UncheckedJson) => c.requestId),
    [ids[2], ids[1]],
  );
  t.deepEqual(Object.keys(first.body.items[0]).sort(), ['charged', 'code', 'completedAt', 'createdAt', 'requestId', 'status', 'tool']);
  const second = await request('GET', `/api/v1/calls?limit=2&cursor=${first.body.nextCursor}`, { token: account.apiKey });
  t.deepEqual(
    second.body.items.map((c: UncheckedJson) => c.requestId),
    [ids[0]],
  );
  t.is(second.body.nextCursor, null);
  const owner = await request('GET', '/api/v1/account/calls', { token: account.ownerToken });
  t.deepEqual(
    owner.body.items.map((c: UncheckedJson) => c.requestId),
    [...ids].reverse(),
  );
  t.false(owner.body.items.some((c: UncheckedJson) => c.requestId === sync.headers.get('x-request-id')));
  t.is(
    await withServiceDb((db) => db.collection('calls').countDocuments({ _id: sync.headers.get('x-request-id') as never })),
    0,
    'a synchronous call writes no call record',
  );
  t.true(isProblem(await request('GET', '/api/v1/calls?limit=0', { token: account.apiKey }), 400, 'validation_failed'));
});
