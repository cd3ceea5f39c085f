//! The three stores a big output can wait in (lib/blob-store.ts), held to one contract: a directory,
//! the database (GridFS) and a real S3-compatible server (S3Proxy from `.tools/`, started here).
//! Each test opens its own store (own directory, database or prefix): they run at once, and a sweep
//! must only ever see its own test's blobs.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import test from 'ava';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { ConfigError } from '../../lib/config.js';
import { connectMongo, type Mongo } from '../../lib/mongo.js';
import { DatabaseBlobStore, DirectoryBlobStore, hourOf, newBlobKey, parseBlobKey, type BlobStore } from '../../lib/blob-store.js';
import { openBlobStore } from '../../lib/open-blob-store.js';
import { S3BlobStore } from '../../lib/blob-store-s3.js';
import { startS3Server, type S3Server } from '../fixtures/s3-server.js';
import { testEnv } from '../helpers/env.js';

const BUCKET = 'blob-store-test';
const HOUR_MS = 3_600_000;

let tmp: string;
let mongo: Mongo;
let s3: S3Server;
const databases: string[] = [];

test.before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'blob-store-test-'));
  mongo = await connectMongo(testEnv.mongodbUrl().replace(/\/[^/]*$/, '/blob_store_tests'));
  s3 = await startS3Server();
  await s3.createBucket(BUCKET);
});

test.after.always(async () => {
  await Promise.all(databases.map((name) => mongo?.client.db(name).dropDatabase()));
  await mongo?.close();
  await s3?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

let opened = 0;
/** A fresh store of each kind, sharing nothing with any other test's. */
const STORES: Record<string, () => BlobStore> = {
  directory: () => new DirectoryBlobStore(path.join(tmp, `store-${++opened}`)),
  database: () => {
    const name = `blob_store_tests_${++opened}`;
    databases.push(name);
    return new DatabaseBlobStore(mongo.client.db(name));
  },
  s3: () => S3BlobStore.fromUrl(`s3://${BUCKET}/contract-${++opened}`, s3.env),
};

for (const [kind, open] of Object.entries(STORES)) {
  test(`${kind}: get returns the bytes put, for 1 MiB of random bytes and for none`, async (t) => {
    const store = open();
    const big = randomBytes(1 << 20);
    const [bigKey, emptyKey] = await Promise.all([store.put(big), store.put(new Uint8Array(0))]);
    t.truthy(parseBlobKey(bigKey), bigKey);
    t.not(bigKey, emptyKey);
    const back = await store.get(bigKey);
    t.true(Buffer.isBuffer(back));
    t.true(back!.equals(big));
    t.deepEqual(await store.get(emptyKey), Buffer.alloc(0));
  });

  test(`${kind}: get of a key never written, or of one no store makes, is undefined`, async (t) => {
    const store = open();
    await store.put(Buffer.from('something else'));
    t.is(await store.get(newBlobKey()), undefined);
    for (const key of ['../x', '', `${hourOf(new Date())}/../../x`, `${newBlobKey()}/`, newBlobKey().toUpperCase()]) {
      t.is(await store.get(key), undefined, key);
    }
  });

  test(`${kind}: a sweep takes the blobs of hours before its cut-off and leaves the current hour's`, async (t) => {
    const store = open();
    const blobs = ['one', 'two', 'three'].map((s) => Buffer.from(s));
    const keys = await Promise.all(blobs.map((b) => store.put(b)));

    t.is(await store.sweep(new Date(Date.now() - HOUR_MS)), 0);
    for (const [i, key] of keys.entries()) t.deepEqual(await store.get(key), blobs[i]);

    t.is(await store.sweep(new Date(Date.now() + 2 * HOUR_MS)), keys.length);
    for (const key of keys) t.is(await store.get(key), undefined);
    t.is(await store.sweep(new Date(Date.now() + 2 * HOUR_MS)), 0);
  });

  test(`${kind}: an area is a store of its own: neither its sweep nor the store's takes the other's blobs`, async (t) => {
    const store = open();
    const area = store.area('render-cache');
    const [outer, inner] = [Buffer.from('output'), Buffer.from('render')];
    const [outerKey, innerKey] = [await store.put(outer), await area.put(inner)];
    t.is(await store.get(innerKey), undefined);
    t.is(await area.get(outerKey), undefined);
    t.is(await store.sweep(new Date(Date.now() + 2 * HOUR_MS)), 1);
    t.deepEqual(await area.get(innerKey), inner);
    t.is(await area.sweep(new Date(Date.now() + 2 * HOUR_MS)), 1);
    t.is(await area.get(innerKey), undefined);
    t.throws(() => store.area('../up'), { message: /lower-case words/ });
  });
}

test('directory: a .partial file (a write cut short) is never returned, and goes with its hour', async (t) => {
  const dir = path.join(tmp, 'partial');
  const store = new DirectoryBlobStore(dir);
  const key = newBlobKey();
  const { hour, name } = parseBlobKey(key)!;
  mkdirSync(path.join(dir, hour), { recursive: true });
  writeFileSync(path.join(dir, hour, `${name}.partial`), 'half of it');
  t.is(await store.get(key), undefined);
  t.is(await store.get(`${key}.partial`), undefined);
  t.is(await store.sweep(new Date(Date.now() + 2 * HOUR_MS)), 0, 'a partial file is not counted as a blob');
  t.false(existsSync(path.join(dir, hour)));
});

test('s3: objects are stored at <prefix>/<key>; a sweep leaves what is outside its prefix or not an hour', async (t) => {
  const store = S3BlobStore.fromUrl(`s3://${BUCKET}/nested/prefix/`, s3.env);
  const key = await store.put(Buffer.from('mine'));
  const stored = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: `nested/prefix/${key}` }));
  t.is(await stored.Body!.transformToString(), 'mine');

  const others = [`nested/prefix-other/${key}`, `nested/${key}`, `nested/prefix/not-an-hour/${key.split('/')[1]}`, key];
  await Promise.all(others.map((Key) => s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: 'not yours' }))));
  t.is(await store.sweep(new Date(Date.now() + 2 * HOUR_MS)), 1);
  t.is(await store.get(key), undefined);
  for (const Key of others) {
    const left = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key }));
    t.is(await left.Body!.transformToString(), 'not yours', Key);
  }
});

test('s3: a bucket that does not exist is an error, not a missing blob', async (t) => {
  const store = S3BlobStore.fromUrl('s3://no-such-bucket', s3.env);
  await t.throwsAsync(store.get(newBlobKey()), { name: 'NoSuchBucket' });
});

test('openBlobStore: s3://bucket/prefix with the S3_* variables gives a working store', async (t) => {
  const store = await openBlobStore(`s3://${BUCKET}/opened`, mongo.db, s3.env);
  t.true(store instanceof S3BlobStore);
  const bytes = randomBytes(4096);
  const key = await store.put(bytes);
  t.true((await store.get(key))!.equals(bytes));
  const listed = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: `opened/${key}` }));
  t.is(listed.ContentLength, bytes.length);
});

test('openBlobStore: unset is the database, file:// a directory, anything else a ConfigError', async (t) => {
  t.true((await openBlobStore(undefined, mongo.db, {})) instanceof DatabaseBlobStore);
  t.true((await openBlobStore(pathToFileURL(path.join(tmp, 'opened')).href, mongo.db, {})) instanceof DirectoryBlobStore);
  const err = await t.throwsAsync(openBlobStore('ftp://x', mongo.db, {}), { instanceOf: ConfigError });
  t.regex(err!.message, /file:\/\/.*s3:\/\/.*unset/);
});

test('S3BlobStore.fromUrl refuses what it cannot use, as a ConfigError', (t) => {
  const cases: [string, NodeJS.ProcessEnv][] = [
    ['s3://', s3.env],
    ['s3://Not_A_Bucket', s3.env],
    ['s3://key:secret@bucket', s3.env],
    ['s3://bucket:9000/prefix', s3.env],
    ['s3://bucket', { S3_ACCESS_KEY_ID: 'only-half' }],
    ['s3://bucket', { S3_ENDPOINT: 'localhost:9000' }],
    ['s3://bucket', { S3_FORCE_PATH_STYLE: 'maybe' }],
  ];
  for (const [url, env] of cases)
    t.throws(() => S3BlobStore.fromUrl(url, env), { instanceOf: ConfigError }, `${url} ${JSON.stringify(env)}`);
});
