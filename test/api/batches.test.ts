//! Batches through HTTP, against the running stack: a batch answers 202 with `Location`, runs each
//! item as the call it would have been (the same output, charged once, in usage with its batch id),
//! and its items, results and counts agree with the balance; bad input is refused before anything
//! starts or is charged (a short balance: batch-credits.test.ts); cancelling skips what is
//! pending while running items finish and are charged; an account's items run at most
//! BATCH_CONCURRENCY at a time, and its live counts add up at every read; the Idempotency-Key answers the same batch; another account's batch
//! is 404; secret fields are not stored in clear.
import test from 'ava';
import type http from 'node:http';
import { apiUrl, balanceOf, callTool, isProblem, newAccount, request, type TestAccount, type UncheckedJson } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { BATCH_CONCURRENCY, allItems, batchOf, ended, getAs as get, postBatch as post } from '../helpers/batches.js';
import { eventually, registerEndpoint, sleep, startReceiver } from '../helpers/webhook-receiver.js';
import { send, startPageServer, type PageServer } from '../fixtures/http-pages.js';

/** The results of a batch as a stream: its lines as they arrive, and whether it ended. */
async function resultLines(account: TestAccount, id: string) {
  const res = await fetch(`${apiUrl()}/api/v1/batches/${id}/results`, { headers: { authorization: `Bearer ${account.apiKey}` } });
  if (res.status !== 200 || !res.body) throw new Error(`results: ${res.status}`);
  const lines: UncheckedJson[] = [];
  let text = '';
  const decoder = new TextDecoder();
  const ended = (async () => {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      const parts = text.split('\n');
      text = parts.pop()!;
      for (const line of parts) if (line) lines.push(JSON.parse(line));
    }
    return true;
  })();
  return {
    ended,
    until: (n: number) =>
      eventually(
        async () => [...lines],
        (ls) => ls.length >= n,
        60_000,
        `${n} result lines`,
      ),
  };
}

let pages: PageServer;
/** Requests to `/hold` wait here until the test lets them go. */
const held: http.ServerResponse[] = [];
test.before(async () => {
  pages = await startPageServer({ routes: { '/hold': (_req, res) => void held.push(res) } });
});
test.after.always(async () => {
  await pages?.close();
});

test('a batch answers 202 with Location, runs each item as its call would (same output, charged once, in usage with the batch id), and its items, results and counts agree', async (t) => {
  const account = await newAccount(50);
  const texts = Array.from({ length: 12 }, (_, i) => ({ text: `item ${i}` }));
  const res = await post(account, { tool: 'hash-text', items: texts, defaults: { algorithm: 'sha256' } });
  t.is(res.status, 202, JSON.stringify(res.body));
  t.regex(res.body.id, /^bat_[0-9A-Za-z]+$/);
  t.is(res.headers.get('location'), `/api/v1/batches/${res.body.id}`);
  t.like(res.body, { tool: 'hash-text', total: 12, charged: 0, completedAt: null, onInsufficientCredits: 'stop' });
  t.true(['running', 'completed'].includes(res.body.status));
  t.is(
    Object.values(res.body.counts as Record<string, number>).reduce((a, b) => a + b, 0),
    12,
    'the counts add up to the total',
  );

  const done = await ended(account, res.body.id);
  t.like(done.body, {
    status: 'completed',
    total: 12,
    charged: 12,
    counts: { pending: 0, running: 0, succeeded: 12, failed: 0, skipped: 0 },
  });
  t.is(await balanceOf(account), 38, 'each item charged once');

  const items = await allItems(account, res.body.id);
  t.deepEqual(
    items.map((i) => i.index),
    [...Array(12).keys()],
    'every item, in index order, over pages',
  );
  const sync = await callTool(account.apiKey, 'hash-text', { text: 'item 5', algorithm: 'sha256' });
  t.deepEqual(items[5].output, sync.body, 'the output a synchronous call answers');
  t.true(items.every((i) => i.status === 'succeeded' && /^call-acc_/.test(i.requestId) && i.error === undefined));

  const usage = await request('GET', '/api/v1/account/usage', { token: account.ownerToken });
  const rows = usage.body.items.filter((u: UncheckedJson) => u.batchId === res.body.id);
  t.is(rows.length, 12, 'usage lists each item with its batch id');
  t.deepEqual(rows.map((u: UncheckedJson) => u.requestId).sort(), items.map((i) => i.requestId).sort());

  const results = await fetch(`${apiUrl()}/api/v1/batches/${res.body.id}/results`, {
    headers: { authorization: `Bearer ${account.apiKey}` },
  });
  t.is(results.status, 200);
  t.regex(results.headers.get('content-type') ?? '', /^application\/x-ndjson/);
  const lines = (await results.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.deepEqual(
    lines.map((l) => l.index).sort((a, b) => a - b),
    [...Array(12).keys()],
    'a line per finished item, each once',
  );
  t.deepEqual(lines.find((l) => l.index === 5).output, sync.body);

  const list = await get(account, '/api/v1/batches');
  t.is(list.body.items[0].id, res.body.id);
});

test('bad input is refused before anything starts or is charged: an invalid item names its field, an unknown tool, too many items, a body over its limit', async (t) => {
  const account = await newAccount(10);
  const invalid = await post(account, { tool: 'hash-text', items: [{ text: 'fine' }, { text: 'x', algorithm: 'rot13' }, {}] });
  t.true(isProblem(invalid, 400, 'validation_failed'));
  const fields = invalid.body.errors.map((e: UncheckedJson) => e.field);
  t.true(fields.includes('/items/1/algorithm'), JSON.stringify(fields));
  t.true(fields.includes('/items/2/text'), JSON.stringify(fields));
  t.false(fields.some((f: string) => f.startsWith('/items/0')));

  const unknown = await post(account, { tool: 'no-such-tool', items: [{}] });
  t.true(isProblem(unknown, 400, 'validation_failed'));
  t.deepEqual(
    unknown.body.errors.map((e: UncheckedJson) => e.field),
    ['/tool'],
  );

  const tooMany = await post(account, { tool: 'hash-text', items: Array.from({ length: 10_001 }, () => ({ text: 'a' })) });
  t.true(isProblem(tooMany, 400, 'validation_failed'));
  t.deepEqual(
    tooMany.body.errors.map((e: UncheckedJson) => e.field),
    ['/items'],
  );

  const empty = await post(account, { tool: 'hash-text', items: [] });
  t.true(isProblem(empty, 400, 'validation_failed'));

  const huge = await request('POST', '/api/v1/batches', {
    token: account.apiKey,
    rawBody: JSON.stringify({ tool: 'hash-text', items: [{ text: 'a'.repeat(17 * 1024 * 1024) }] }),
    headers: { 'content-type': 'application/json' },
  });
  t.true(isProblem(huge, 413, 'payload_too_large'));
  t.is(huge.body.limit, 16 * 1024 * 1024);

  t.is((await get(account, '/api/v1/batches')).body.items.length, 0, 'no batch was made');
  t.is(await balanceOf(account), 10, 'nothing was charged');
});

test('the live counts are exact at every read while a batch runs: they add up to its total, running never past BATCH_CONCURRENCY, and nothing goes back', async (t) => {
  const account = await newAccount(100);
  const total = 40;
  const res = await post(account, { tool: 'hash-text', items: Array.from({ length: total }, (_, i) => ({ text: `live ${i}` })) });
  t.is(res.status, 202);
  const reads: UncheckedJson[] = [];
  for (;;) {
    const now = await batchOf(account, res.body.id);
    t.is(now.status, 200);
    reads.push(now.body);
    if (now.body.completedAt !== null) break;
    await sleep(20);
  }
  for (const { counts, charged } of reads) {
    const sum = counts.pending + counts.running + counts.succeeded + counts.failed + counts.skipped;
    t.is(sum, total, `counts add up to the total: ${JSON.stringify(counts)}`);
    t.true(counts.running >= 0 && counts.running <= BATCH_CONCURRENCY, `running within the bound: ${JSON.stringify(counts)}`);
    t.is(charged, counts.succeeded, 'charged what succeeded so far (hash-text costs 1)');
  }
  const ends = reads.map((r) => r.counts.succeeded);
  t.deepEqual(
    ends,
    [...ends].sort((a, b) => a - b),
    'succeeded never goes back',
  );
  t.like(reads.at(-1), {
    status: 'completed',
    charged: total,
    counts: { pending: 0, running: 0, succeeded: total, failed: 0, skipped: 0 },
  });
  t.true(reads.length > 2, 'read while it ran');
});

test("an account's items run at most BATCH_CONCURRENCY at a time; cancelling skips the pending ones with cancelled, while running ones finish and are charged", async (t) => {
  const account = await newAccount(100);
  const before = held.length;
  const res = await post(account, {
    tool: 'http-request',
    items: Array.from({ length: 10 }, (_, i) => ({ url: pages.url(`/hold?i=${i}`) })),
  });
  t.is(res.status, 202, JSON.stringify(res.body));
  // The first items hold their calls open: the bound is reached, and no more start.
  await eventually(
    async () => held.length - before,
    (n) => n >= BATCH_CONCURRENCY,
    60_000,
    'the first items to reach the server',
  );
  const running = await eventually(
    () => batchOf(account, res.body.id),
    (r) => r.body.counts.running === BATCH_CONCURRENCY,
    30_000,
    'the counts to show them running',
  );
  t.like(running.body.counts, { pending: 10 - BATCH_CONCURRENCY, running: BATCH_CONCURRENCY });
  t.is(held.length - before, BATCH_CONCURRENCY, 'no item beyond the bound started');

  // The results stream while the batch runs: the skipped items' lines come before any running item ends.
  const stream = await resultLines(account, res.body.id);
  const cancelled = await request('DELETE', `/api/v1/batches/${res.body.id}`, { token: account.apiKey });
  t.is(cancelled.status, 200);
  t.like(cancelled.body, {
    status: 'cancelled',
    completedAt: null,
    counts: { pending: 0, running: BATCH_CONCURRENCY, skipped: 10 - BATCH_CONCURRENCY },
  });
  const early = await stream.until(10 - BATCH_CONCURRENCY);
  t.true(
    early.every((l) => l.status === 'skipped' && l.error.code === 'cancelled'),
    JSON.stringify(early),
  );

  for (const r of held.splice(before)) send(r, 200, 'text/plain', 'let go');
  const all = await stream.until(10);
  t.deepEqual(
    all.map((l) => l.index).sort((a, b) => a - b),
    [...Array(10).keys()],
  );
  t.true(await stream.ended, 'the stream ends once the batch has ended');
  const done = await ended(account, res.body.id);
  const cost = 2; // http-request
  t.like(done.body, {
    status: 'cancelled',
    charged: BATCH_CONCURRENCY * cost,
    counts: { pending: 0, running: 0, succeeded: BATCH_CONCURRENCY, failed: 0, skipped: 10 - BATCH_CONCURRENCY },
  });
  t.is(await balanceOf(account), 100 - BATCH_CONCURRENCY * cost);
  const skipped = await allItems(account, res.body.id, '&status=skipped');
  t.true(skipped.every((i) => i.error?.code === 'cancelled' && i.requestId === null));
  t.is(pages.requests.filter((r) => r.path.startsWith('/hold')).length, BATCH_CONCURRENCY, 'skipped items never ran');
});

test('the Idempotency-Key answers the same batch (Idempotent-Replayed), and another body under it is 409', async (t) => {
  const account = await newAccount(20);
  const body = { tool: 'hash-text', items: [{ text: 'once' }] };
  const first = await post(account, body, { 'idempotency-key': 'batch-1' });
  t.is(first.status, 202);
  const again = await post(account, body, { 'idempotency-key': 'batch-1' });
  t.is(again.status, 202);
  t.is(again.body.id, first.body.id);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  const other = await post(account, { tool: 'hash-text', items: [{ text: 'twice' }] }, { 'idempotency-key': 'batch-1' });
  t.true(isProblem(other, 409, 'idempotency_conflict'));
  await ended(account, first.body.id);
  t.is(await balanceOf(account), 19, 'charged once');
  t.is((await get(account, '/api/v1/batches')).body.items.length, 1);
});

test("another account's batch is 404 to read, list the items of, stream or cancel; a bad status or cursor is 400", async (t) => {
  const owner = await newAccount(10);
  const stranger = await newAccount(10);
  const res = await post(owner, { tool: 'hash-text', items: [{ text: 'mine' }] });
  for (const path of ['', '/items', '/results'])
    t.true(isProblem(await get(stranger, `/api/v1/batches/${res.body.id}${path}`), 404, 'not_found'), path);
  t.true(isProblem(await request('DELETE', `/api/v1/batches/${res.body.id}`, { token: stranger.apiKey }), 404, 'not_found'));
  t.true(isProblem(await get(owner, `/api/v1/batches/${res.body.id}/items?status=lost`), 400, 'validation_failed'));
  t.true(isProblem(await get(owner, `/api/v1/batches/${res.body.id}/items?cursor=nonsense`), 400, 'validation_failed'));
  await ended(owner, res.body.id);
});

test('secret fields of items are stored sealed, and dropped once the item ended', async (t) => {
  const account = await newAccount(20);
  const password = 'batch-secret-password-1';
  const res = await post(account, {
    tool: 'bcrypt-hash',
    items: [{ password }, { password: `${password}-2` }],
    defaults: { workFactor: 4 },
  });
  t.is(res.status, 202, JSON.stringify(res.body));
  const done = await ended(account, res.body.id);
  t.like(done.body.counts, { succeeded: 2 });
  const items = await allItems(account, res.body.id);
  t.regex(items[0].output.hash, /^\$2[aby]\$04\$/);
  await withServiceDb(async (db) => {
    const stored = JSON.stringify(await db.collection('batch_items').find({ batchId: res.body.id }).toArray());
    t.false(stored.includes(password), 'no password in clear');
    t.false(stored.includes('sealed'), 'sealed fields dropped once ended');
  });
});

test('batch.completed reaches an endpoint on the default event types with the final counts, and not one subscribed to other types', async (t) => {
  const receiver = await startReceiver();
  try {
    const account = await newAccount(10);
    await registerEndpoint(account, receiver.url('/batches-default'));
    await registerEndpoint(account, receiver.url('/batches-other'), ['credits.low']);
    const res = await post(account, { tool: 'hash-text', items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] });
    const got = await receiver.waitFor(
      (ds) => ds.some((d) => d.path === '/batches-default' && d.body?.event === 'batch.completed'),
      60_000,
      'batch.completed',
    );
    const event = got.find((d) => d.path === '/batches-default' && d.body?.event === 'batch.completed')!.body;
    t.deepEqual(event.data, {
      batchId: res.body.id,
      tool: 'hash-text',
      status: 'completed',
      total: 3,
      counts: { pending: 0, running: 0, succeeded: 3, failed: 0, skipped: 0 },
      charged: 3,
    });
    await sleep(2000);
    t.is(receiver.deliveries('/batches-default').filter((d) => d.body?.event === 'batch.completed').length, 1, 'once');
    t.false(receiver.deliveries('/batches-other').some((d) => d.body?.event === 'batch.completed'));
  } finally {
    await receiver.close();
  }
});

test('a batch needs an API key (401 without, 403 with the owner token), and an item whose target the guard refuses is 422 naming the item, before anything starts', async (t) => {
  const account = await newAccount(10);
  const body = { tool: 'hash-text', items: [{ text: 'a' }] };
  t.true(isProblem(await request('POST', '/api/v1/batches', { body }), 401, 'unauthorized'));
  t.true(isProblem(await request('POST', '/api/v1/batches', { token: account.ownerToken, body }), 403, 'forbidden'));
  const refused = await post(account, { tool: 'http-request', items: [{ url: 'https://example.com/' }, { url: 'http://10.0.0.1/' }] });
  t.true(isProblem(refused, 422, 'target_not_allowed'));
  t.is(refused.body.index, 1);
  t.regex(refused.body.detail, /^Item 1: /);
  t.is((await get(account, '/api/v1/batches')).body.items.length, 0);
  t.is(await balanceOf(account), 10);
});
