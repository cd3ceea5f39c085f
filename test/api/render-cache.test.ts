//! The render cache for POST calls of capture tools: `Cache-Control: max-age=N` takes a stored
//! render up to N s old (free, `X-Cache: HIT`, `Age`, `ETag`, 304 on If-None-Match), `no-cache`
//! renders afresh, two spellings of one input are one entry, no header is today's path, the
//! owner's purge empties it, and the images live in the blob store's own area, swept after 30 days.
import test from 'ava';
import { callTool, balanceOf, isProblem, newAccount, request } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { createRenderCache, MAX_RENDER_AGE_S } from '../../domain/render-cache.js';
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
  const second = await callTool(account.apiKey, 'qr-generate', { errorCorrection: 'M', size: 150, text: 'cached post' }, { 'Cache-Control': 'max-age=600' });
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
  await withServiceDb((db) => db.collection('render_cache').updateMany({ accountId: account.id }, { $set: { createdAt: new Date(Date.now() - 120_000) } }));
  // An API instance sees a change made elsewhere within a second (it remembers found entries briefly).
  await sleep(1_000);
  const old = await callTool(account.apiKey, 'qr-generate', input, { 'Cache-Control': 'max-age=60' });
  t.is(old.headers.get('x-cache'), 'MISS');
  const young = await callTool(account.apiKey, 'qr-generate', input, { 'Cache-Control': 'max-age=60' });
  t.is(young.headers.get('x-cache'), 'HIT');
  t.is(await balanceOf(account), 8);
});

test('DELETE /account/render-cache empties the account\'s cache, not another\'s', async (t) => {
  const [mine, theirs] = [await newAccount(10), await newAccount(10)];
  const input = { text: 'purge me' };
  for (const a of [mine, theirs]) await callTool(a.apiKey, 'qr-generate', input, { 'Cache-Control': 'max-age=600' });
  const purged = await request('DELETE', '/api/v1/account/render-cache', { token: mine.ownerToken });
  t.is(purged.status, 200);
  t.deepEqual(purged.body, { deleted: 1 });
  t.is((await callTool(mine.apiKey, 'qr-generate', input, { 'Cache-Control': 'max-age=600' })).headers.get('x-cache'), 'MISS');
  t.is((await callTool(theirs.apiKey, 'qr-generate', input, { 'Cache-Control': 'max-age=600' })).headers.get('x-cache'), 'HIT');
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
      await cache.store({ accountId, tool: 'qr-generate', input, image: Buffer.from('png bytes'), mimeType: 'image/png', meta: { mimeType: 'image/png', size: 300 }, cost: 1 }, made);
      t.deepEqual(await readdir(dir), ['render-cache']);
      // The output store's own sweep (24 h) leaves the area alone.
      t.is(await blobs.sweep(new Date()), 0);
      t.truthy(await cache.lookup(accountId, 'qr-generate', input, MAX_RENDER_AGE_S));
      // Past 30 days of the entry, and past the whole hour its image was written in.
      const swept = await cache.sweep(Date.now() + MAX_RENDER_AGE_S * 1000 + 2 * 60 * 60 * 1000);
      t.is(swept.entries, 1);
      t.is(swept.images, 1);
      t.is(await cache.lookup(accountId, 'qr-generate', input, MAX_RENDER_AGE_S), undefined);
    } finally {
      await db.dropDatabase();
      await mongo.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
