//! The render cache for POST calls of capture tools: `Cache-Control: max-age=N` takes a stored
//! render up to N s old (free, `X-Cache: HIT`, `Age`, `ETag`, 304 on If-None-Match), `no-cache`
//! renders afresh, two spellings of one input are one entry, no header is today's path, the
//! owner's purge empties it, and the images live in the blob store's own area, swept after 30 days.
//! An asynchronous POST honours the header too, and the owner's usage shows the hits per day.
import test from 'ava';
import { callTool, balanceOf, isProblem, newAccount, request } from '../helpers/api.js';
import { ended } from './support/async-calls.js';
import { withServiceDb } from '../helpers/db.js';
import { createRenderCache, MAX_RENDER_AGE_S, renderCacheId } from '../../domain/render-cache.js';
import { DirectoryBlobStore } from '../../lib/blob-store.js';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { testEnv } from '../helpers/env.js';

test('POST with Cache-Control: max-age takes a stored render, free; the JSON answer is the same output', async (t) => {
  const account = await newAccount(10);
  const input = { text: 'cached post', size: 150 };
  const first = await callTool(account.apiKey, 'qr-generate', input, { 'Cache-Control': 'max-age=600' });
  t.is(first.status, 200);
  t.is(first.headers.get('x-cache'), 'MISS');
  t.is(first.headers.get('x-credits-charged'), '1');
  t.is(first.headers.get('cache-control'), 'private, max-age=600');
  // Another spelling of the same input (defaults written out, other key order) is the same entry.
  const second = await callTool(
    account.apiKey,
    'qr-generate',
    { errorCorrection: 'M', size: 150, text: 'cached post' },
    { 'Cache-Control': 'max-age=600' },
  );
  t.is(second.status, 200);
  t.is(second.headers.get('x-cache'), 'HIT');
  t.is(second.headers.get('x-credits-charged'), '0');
  t.regex(second.headers.get('age') ?? '', /^\d+$/);
  t.regex(second.headers.get('cache-control') ?? '', /^private, max-age=\d+$/);
  t.deepEqual(second.body, first.body);
  const etag = second.headers.get('etag')!;
  t.is(etag, first.headers.get('etag')!);
  const notModified = await callTool(account.apiKey, 'qr-generate', input, { 'Cache-Control': 'max-age=600', 'If-None-Match': etag });
  t.is(notModified.status, 304);
  t.is(await balanceOf(account), 9);
});

test('no-cache renders afresh and is charged; no header is the ordinary call, without cache headers; a bad max-age is 400', async (t) => {
  const account = await newAccount(10);
  const input = { text: 'fresh please' };
  await callTool(account.apiKey, 'qr-generate', input, { 'Cache-Control': 'max-age=600' });
  const fresh = await callTool(account.apiKey, 'qr-generate', input, { 'Cache-Control': 'no-cache' });
  t.is(fresh.headers.get('x-cache'), 'MISS');
  t.is(fresh.headers.get('x-credits-charged'), '1');
  const plain = await callTool(account.apiKey, 'qr-generate', input);
  t.is(plain.status, 200);
  t.is(plain.headers.get('x-cache'), null);
  t.is(plain.headers.get('etag'), null);
  t.is(plain.headers.get('x-credits-charged'), '1');
  const bad = await callTool(account.apiKey, 'qr-generate', input, { 'Cache-Control': 'max-age=soon' });
  t.true(isProblem(bad, 400, 'validation_failed'));
  t.deepEqual(bad.body.errors, [{ field: 'header:Cache-Control', message: 'max-age must be a whole number of seconds' }]);
  // A tool that makes no image ignores the header.
  const hash = await callTool(account.apiKey, 'hash-text', { text: 'x', algorithm: 'sha256' }, { 'Cache-Control': 'max-age=600' });
  t.is(hash.headers.get('x-cache'), null);
  t.is(await balanceOf(account), 10 - 3 - 1);
});

test('a render older than max-age is not taken: the call renders and stores afresh', async (t) => {
  const account = await newAccount(10);
  const input = { text: 'ageing' };
  await callTool(account.apiKey, 'qr-generate', input, { 'Cache-Control': 'max-age=600' });
  // Make the stored render two minutes old.
  await withServiceDb((db) =>
    db.collection('render_cache').updateMany({ accountId: account.id }, { $set: { createdAt: new Date(Date.now() - 120_000) } }),
  );
  // An API instance sees a change made elsewhere within a second (it remembers found entries briefly).
  await sleep(1_000);
  const old = await callTool(account.apiKey, 'qr-generate', input, { 'Cache-Control': 'max-age=60' });
  t.is(old.headers.get('x-cache'), 'MISS');
  const young = await callTool(account.apiKey, 'qr-generate', input, { 'Cache-Control': 'max-age=60' });
  t.is(young.headers.get('x-cache'), 'HIT');
  t.is(await balanceOf(account), 8);
});

test("DELETE /account/render-cache empties the account's cache, not another's", async (t) => {
  const [mine, theirs] = [await newAccount(10), await newAccount(10)];
  const input = { text: 'purge me' };
  for (const a of [mine, theirs]) await callTool(a.apiKey, 'qr-generate', input, { 'Cache-Control': 'max-age=600' });
  const purged = await request('DELETE', '/api/v1/account/render-cache', { token: mine.ownerToken });
  t.is(purged.status, 200);
  t.deepEqual(purged.body, { deleted: 1 });
  t.is((await callTool(mine.apiKey, 'qr-generate', input, { 'Cache-Control': 'max-age=600' })).headers.get('x-cache'), 'MISS');
  t.is((await callTool(theirs.apiKey, 'qr-generate', input, { 'Cache-Control': 'max-age=600' })).headers.get('x-cache'), 'HIT');
});

test('Prefer: respond-async with Cache-Control: a miss runs asynchronously and stores its render; a hit is the 200 a synchronous call gets, at once and free', async (t) => {
  const account = await newAccount(100);
  // Dense text, so the image is big enough that its worker hands the output over through the blob
  // store, not the workflow's history.
  const words = Array.from({ length: 2500 }, (_, i) => ((i * 7919) % 100003).toString(36)).join(' ');
  const input = { html: `<p style="font: 9px monospace; margin: 0">${words}</p>`, width: 1200, height: 1000 };
  const async = { prefer: 'respond-async', 'Cache-Control': 'max-age=600' };
  const started = await callTool(account.apiKey, 'html-to-image', input, async);
  t.is(started.status, 202);
  t.is(started.headers.get('preference-applied'), 'respond-async');
  const done = await ended(account, started.body.requestId);
  t.like(done.body, { status: 'succeeded', charged: 25 });
  t.true(JSON.stringify(done.body.output).length > 32 * 1024);

  // The render it made is the cache's: a synchronous call takes it, free.
  const sync = await callTool(account.apiKey, 'html-to-image', input, { 'Cache-Control': 'max-age=600' });
  t.is(sync.status, 200);
  t.is(sync.headers.get('x-cache'), 'HIT');
  t.deepEqual(sync.body, done.body.output);
  // So does an asynchronous one: nothing is left to wait for, so it is that same 200, not a 202.
  const hit = await callTool(account.apiKey, 'html-to-image', input, async);
  t.is(hit.status, 200);
  t.is(hit.headers.get('x-cache'), 'HIT');
  t.is(hit.headers.get('x-credits-charged'), '0');
  t.is(hit.headers.get('preference-applied'), null);
  t.is(hit.headers.get('location'), null);
  t.regex(hit.headers.get('cache-control') ?? '', /^private, max-age=\d+$/);
  t.deepEqual(hit.body, done.body.output);
  const notModified = await callTool(account.apiKey, 'html-to-image', input, { ...async, 'If-None-Match': sync.headers.get('etag')! });
  t.is(notModified.status, 304);

  // no-cache renders afresh asynchronously; no Cache-Control is the ordinary asynchronous call.
  for (const headers of [{ prefer: 'respond-async', 'Cache-Control': 'no-cache' }, { prefer: 'respond-async' }] as Record<
    string,
    string
  >[]) {
    const fresh = await callTool(account.apiKey, 'html-to-image', input, headers);
    t.is(fresh.status, 202);
    t.like((await ended(account, fresh.body.requestId)).body, { status: 'succeeded', charged: 25 });
  }
  t.is(await balanceOf(account), 25);
});

test("usage shows the cache's hits and credits saved per day: a miss then two hits are 2 hits, not calls; another account's usage shows none", async (t) => {
  const [mine, theirs] = [await newAccount(100), await newAccount(100)];
  const input = { html: '<p>counted in usage</p>', width: 400, height: 300 };
  const before = new Date().toISOString().slice(0, 10);
  const answers = [];
  for (let i = 0; i < 3; i++) answers.push(await callTool(mine.apiKey, 'html-to-image', input, { 'Cache-Control': 'max-age=600' }));
  t.deepEqual(
    answers.map((a) => [a.status, a.headers.get('x-cache')]),
    [
      [200, 'MISS'],
      [200, 'HIT'],
      [200, 'HIT'],
    ],
  );
  const after = new Date().toISOString().slice(0, 10);
  // The other account renders the same input itself: a miss, never one of my hits.
  t.is((await callTool(theirs.apiKey, 'html-to-image', input, { 'Cache-Control': 'max-age=600' })).headers.get('x-cache'), 'MISS');

  type Day = { day: string; cacheHits: number; creditsSaved: number };
  const usageOf = async (token: string, query = '') => {
    const res = await request('GET', `/api/v1/account/usage${query}`, { token });
    t.is(res.status, 200);
    return res.body as { items: Array<{ requestId: string; outcome: string; credits: number }>; days: Day[] };
  };
  const hitsIn = (days: Day[]) => days.reduce((n, d) => n + d.cacheHits, 0);
  // Hits are added to the owner's days after their answers: wait for both, bounded only against a hang.
  let usage = await usageOf(mine.ownerToken);
  for (let i = 0; i < 100 && hitsIn(usage.days) < 2; i++) {
    await sleep(100);
    usage = await usageOf(mine.ownerToken);
  }
  // Both on the day they were answered (the day may have turned between the two).
  t.is(hitsIn(usage.days), 2);
  t.is(
    usage.days.reduce((n, d) => n + d.creditsSaved, 0),
    50,
  );
  t.true(usage.days.every((d) => d.day >= before && d.day <= after && d.creditsSaved === d.cacheHits * 25));
  if (before === after) t.deepEqual(usage.days, [{ day: before, cacheHits: 2, creditsSaved: 50 }]);
  // The items are the calls: the one render, charged; the hits are none of them.
  t.deepEqual(
    usage.items.map((i) => [i.requestId, i.outcome, i.credits]),
    [[answers[0]!.headers.get('x-request-id'), 'charged', 25]],
  );
  // A key filter does not hide the account's days (a hit is no key's call); a period without hits has none.
  t.is(hitsIn((await usageOf(mine.ownerToken, `?keyId=${mine.apiKeyId}`)).days), 2);
  t.deepEqual((await usageOf(mine.ownerToken, '?from=2020-01-01&to=2020-02-01')).days, []);

  const theirUsage = await usageOf(theirs.ownerToken);
  t.deepEqual(theirUsage.days, []);
  t.is(theirUsage.items.length, 1);
});

test('identical misses at once render once: one is charged, the others take its render as a free hit', async (t) => {
  const account = await newAccount(100);
  const input = { html: '<p>asked for four times at once</p>', width: 400, height: 300 };
  const answers = await Promise.all(
    Array.from({ length: 4 }, () => callTool(account.apiKey, 'html-to-image', input, { 'Cache-Control': 'max-age=600' })),
  );
  t.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 200, 200],
  );
  t.deepEqual(answers.map((a) => a.headers.get('x-cache')).sort(), ['HIT', 'HIT', 'HIT', 'MISS']);
  t.deepEqual(answers.map((a) => a.headers.get('x-credits-charged')).sort(), ['0', '0', '0', '25']);
  for (const a of answers) t.deepEqual(a.body, answers[0]!.body);
  t.is(new Set(answers.map((a) => a.headers.get('etag'))).size, 1);
  t.is(await balanceOf(account), 75);
  const usage = await request('GET', '/api/v1/account/usage', { token: account.ownerToken });
  t.is(usage.body.items.length, 1);
});

test('identical misses at once whose render fails each get their own answer: refused, free, nothing stored', async (t) => {
  const account = await newAccount(100);
  // The name resolves to a private address: the worker's guard refuses it.
  const input = { url: 'http://private10.test/' };
  const answers = await Promise.all(
    Array.from({ length: 3 }, () => callTool(account.apiKey, 'website-screenshot', input, { 'Cache-Control': 'max-age=600' })),
  );
  for (const a of answers) t.true(isProblem(a, 422, 'target_not_allowed'), JSON.stringify(a.body));
  t.is(new Set(answers.map((a) => a.headers.get('x-request-id'))).size, 3);
  t.is(await balanceOf(account), 100);
  t.is(await withServiceDb((db) => db.collection('render_cache').countDocuments({ accountId: account.id })), 0);
});

test('renders live in their own area of the blob store, swept with their entries after 30 days', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'render-cache-'));
  try {
    // A database of its own: a sweep 30 days ahead would empty the stack's cache under other tests.
    const mongo = await MongoClient.connect(testEnv.mongodbUrl());
    const db = mongo.db(`render_cache_sweep_${process.pid}_${Date.now()}`);
    try {
      const blobs = new DirectoryBlobStore(dir);
      const cache = createRenderCache({ db, blobs });
      const accountId = `acc_sweep${Date.now()}`;
      const input = { text: 'sweep' };
      const made = new Date(Date.now() - 2 * 60 * 60 * 1000);
      await cache.store(
        {
          id: renderCacheId(accountId, 'qr-generate', input),
          accountId,
          tool: 'qr-generate',
          image: Buffer.from('png bytes'),
          mimeType: 'image/png',
          meta: { mimeType: 'image/png', size: 300 },
          cost: 1,
        },
        made,
      );
      t.deepEqual(await readdir(dir), ['render-cache']);
      // The output store's own sweep (24 h) leaves the area alone.
      t.is(await blobs.sweep(new Date()), 0);
      t.truthy(await cache.lookup(renderCacheId(accountId, 'qr-generate', input), MAX_RENDER_AGE_S));
      // Past 30 days of the entry, and past the whole hour its image was written in.
      const swept = await cache.sweep(Date.now() + MAX_RENDER_AGE_S * 1000 + 2 * 60 * 60 * 1000);
      t.is(swept.entries, 1);
      t.is(swept.images, 1);
      t.is(await cache.lookup(renderCacheId(accountId, 'qr-generate', input), MAX_RENDER_AGE_S), undefined);
    } finally {
      await db.dropDatabase();
      await mongo.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
