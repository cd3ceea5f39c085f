//! Destinations, written to: a call with `Output-Destination` (synchronous, queued, asynchronous,
//! batched or through the client) writes its file to the account's bucket and answers where,
//! charged only once it is written; a refused write is refunded; an unknown, foreign or unusable
//! destination starts nothing.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { DeleteBucketCommand } from '@aws-sdk/client-s3';
import { UtilityTools, UtilityToolsError } from 'utility-tools/client';
import { apiUrl, balanceOf, callTool, isProblem, newAccount, request } from '../helpers/api.js';
import { FIXTURE_NAMES } from '../fixtures/dns-server.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { ended } from './support/async-calls.js';
import { workflowHistoryText } from '../helpers/temporal.js';
import { startFileServer, type FileServer } from '../fixtures/file-server.js';
import { makeImage } from '../fixtures/images.js';
import { body, createDestination, newBucket, objectBytes, objectKeys, QR, s3, SECRET } from './support/s3-destinations.js';

let files: FileServer;

test.before(async () => {
  files = await startFileServer();
});

test.after.always(async () => {
  await files?.close();
});

test('a call with Output-Destination writes its file to the bucket and answers where; charged once, the secret in no history or log', async (t) => {
  const account = await newAccount(10);
  const bucket = await newBucket();
  const { body: destination } = await createDestination(account, body(bucket, { prefix: 'qr' }));

  const plain = await callTool(account.apiKey, 'qr-generate', QR);
  t.is(plain.status, 200);
  const stored = await callTool(account.apiKey, 'qr-generate', QR, { 'Output-Destination': destination.id });
  t.is(stored.status, 200, JSON.stringify(stored.body));
  const requestId = stored.headers.get('x-request-id')!;
  const key = `qr/${requestId}/0.png`;
  const file = Buffer.from(plain.body.imageBase64, 'base64');
  t.deepEqual(stored.body, { stored: { bucket, key, size: file.length, contentType: 'image/png' }, mimeType: 'image/png', size: 128 });
  t.is(stored.headers.get('x-credits-charged'), '1');
  t.is(await balanceOf(account), 8);

  t.deepEqual(await objectKeys(bucket), [key]);
  const back = await objectBytes(bucket, key);
  t.true(back.bytes.equals(file), 'the object holds the bytes the tool made');
  t.is(back.contentType, 'image/png');

  const history = await workflowHistoryText(requestId);
  // What the workflow was given: the destination's id and the object's place, nothing more.
  t.true(history.includes(JSON.stringify({ id: destination.id, folder: requestId, name: '0' })), 'the history names the destination');
  t.false(history.includes(SECRET), 'the history holds the secret');
  t.false(history.includes(Buffer.from(SECRET).toString('base64')), 'the history holds the secret in base64');
  const logDir = process.env.STACK_LOG_DIR;
  if (!logDir) throw new Error('STACK_LOG_DIR is not set: run through `npm test`');
  for (const logFile of (await readdir(logDir)).filter((f) => f.endsWith('.log'))) {
    t.false((await readFile(path.join(logDir, logFile), 'utf8')).includes(SECRET), `${logFile} holds the secret`);
  }
});

test("a queued tool's call (watermark-image, on the pool's queue of long calls) writes its file too, as fileBase64 would have carried it", async (t) => {
  const account = await newAccount(10);
  const bucket = await newBucket();
  const { body: destination } = await createDestination(account, body(bucket, { prefix: 'marked' }));
  const input = { fileUrl: files.put('/destinations/photo.jpg', await makeImage('jpeg', 64, 48, 0x806040ff)), text: 'mine' };
  const res = await callTool(account.apiKey, 'watermark-image', input, { 'Output-Destination': destination.id });
  t.is(res.status, 200, JSON.stringify(res.body));
  const key = `marked/${res.headers.get('x-request-id')}/0.jpg`;
  const back = await objectBytes(bucket, key);
  t.like(res.body, {
    stored: { bucket, key, size: back.bytes.length, contentType: 'image/jpeg' },
    mimeType: 'image/jpeg',
    fileName: 'photo-watermarked.jpg',
    sizeBytes: back.bytes.length,
    width: 64,
    height: 48,
  });
  t.is(res.body.fileBase64, undefined);
  t.is(back.contentType, 'image/jpeg');
  t.deepEqual([...back.bytes.subarray(0, 3)], [0xff, 0xd8, 0xff], 'a JPEG');
  t.is(await balanceOf(account), 8);
});

test('an endpoint given by name is reached only as the service resolves and checks it', async (t) => {
  // fixture.test is known only to the stack's DNS fixture (DNS_SERVERS): the write reaching the
  // bucket shows the S3 client connects where the guard's resolver says, never asking the system.
  const account = await newAccount(10);
  const bucket = await newBucket();
  const endpoint = `http://${FIXTURE_NAMES.fixture}:${new URL(s3.endpoint).port}`;
  const created = await createDestination(account, body(bucket, { endpoint }));
  t.is(created.status, 201, JSON.stringify(created.body));
  t.is(created.body.endpoint, endpoint);
  const res = await callTool(account.apiKey, 'qr-generate', QR, { 'Output-Destination': created.body.id });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.deepEqual(await objectKeys(bucket), [res.body.stored.key]);
});

test('an asynchronous call writes to its destination too; an Idempotency-Key remembers the destination it was used with', async (t) => {
  const account = await newAccount(10);
  const [bucket, otherBucket] = await Promise.all([newBucket(), newBucket()]);
  const [{ body: destination }, { body: other }] = await Promise.all([
    createDestination(account, body(bucket)),
    createDestination(account, body(otherBucket)),
  ]);
  const headers = { 'Output-Destination': destination.id, 'Idempotency-Key': `dest-${randomBytes(4).toString('hex')}` };

  const accepted = await callTool(account.apiKey, 'qr-generate', QR, { ...headers, prefer: 'respond-async' });
  t.is(accepted.status, 202, JSON.stringify(accepted.body));
  const { requestId } = accepted.body;
  const done = await ended(account, requestId);
  t.like(done.body, { status: 'succeeded', charged: 1 });
  const key = `${requestId}/0.png`;
  t.deepEqual(done.body.output.stored, { bucket, key, size: (await objectBytes(bucket, key)).bytes.length, contentType: 'image/png' });
  t.is(done.body.output.imageBase64, undefined);

  // The same key with the same destination is the same call; with another destination it is a conflict.
  t.like((await callTool(account.apiKey, 'qr-generate', QR, { ...headers, prefer: 'respond-async' })).body, {
    requestId,
    status: 'succeeded',
  });
  const conflict = await callTool(account.apiKey, 'qr-generate', QR, { ...headers, 'Output-Destination': other.id });
  t.true(isProblem(conflict, 409, 'idempotency_conflict'), JSON.stringify(conflict.body));
  t.deepEqual(await objectKeys(otherBucket), []);
  t.is(await balanceOf(account), 9);
});

test('a write the bucket refuses after creation answers 502 destination_error and the call is refunded', async (t) => {
  const account = await newAccount(10);
  const bucket = await newBucket();
  const { body: destination } = await createDestination(account, body(bucket));
  await s3.client.send(new DeleteBucketCommand({ Bucket: bucket }));

  const res = await callTool(account.apiKey, 'qr-generate', QR, { 'Output-Destination': destination.id });
  t.true(isProblem(res, 502, 'destination_error'), JSON.stringify(res.body));
  t.regex(res.body.reason, /^NoSuchBucket: /);
  t.is(await balanceOf(account), 10);
  const usage = await request('GET', '/api/v1/account/usage', { token: account.ownerToken });
  t.deepEqual(
    usage.body.items.filter((i: { credits: number }) => i.credits !== 0),
    [],
    JSON.stringify(usage.body.items),
  );
});

test("an unknown, another account's, a deleted or a malformed destination, or a tool that makes no file: 400 naming the header, nothing run or charged", async (t) => {
  const [account, other] = await Promise.all([newAccount(10), newAccount(10)]);
  const bucket = await newBucket();
  const { body: foreign } = await createDestination(other, body(bucket));
  const { body: mine } = await createDestination(account, body(bucket));
  const deleted = await request('DELETE', `/api/v1/account/destinations/${mine.id}`, { token: account.ownerToken });
  t.is(deleted.status, 204);
  t.true(isProblem(await request('GET', `/api/v1/account/destinations/${mine.id}`, { token: account.ownerToken }), 404, 'not_found'));
  t.true(isProblem(await request('DELETE', `/api/v1/account/destinations/${mine.id}`, { token: account.ownerToken }), 404, 'not_found'));
  t.true(isProblem(await request('GET', `/api/v1/account/destinations/${foreign.id}`, { token: account.ownerToken }), 404, 'not_found'));
  const { body: live } = await createDestination(account, body(bucket));

  const refusals: [string, string, unknown][] = [
    ['qr-generate', 'dst_0000000000000000000000', QR],
    ['qr-generate', foreign.id, QR],
    ['qr-generate', mine.id, QR],
    ['qr-generate', 'not-a-destination', QR],
    ['hash-text', live.id, { text: 'abc' }],
  ];
  for (const [tool, header, input] of refusals) {
    const res = await callTool(account.apiKey, tool, input, { 'Output-Destination': header });
    t.true(isProblem(res, 400, 'validation_failed'), `${tool} ${header}: ${JSON.stringify(res.body)}`);
    t.deepEqual(
      res.body.errors.map((e: { field: string }) => e.field),
      ['header:Output-Destination'],
    );
  }
  t.is(await balanceOf(account), 10);
  const usage = await request('GET', '/api/v1/account/usage', { token: account.ownerToken });
  t.deepEqual(usage.body.items, []);
  t.deepEqual(await objectKeys(bucket), []);
});

test('the client: account.destinations creates, reads, lists and deletes; tools.store answers where the file went', async (t) => {
  const account = await newAccount(10);
  const client = new UtilityTools({ baseUrl: apiUrl(), apiKey: account.apiKey, ownerToken: account.ownerToken });
  const bucket = await newBucket();
  const created = await client.account.destinations.create({
    type: 's3',
    bucket,
    endpoint: s3.endpoint,
    accessKeyId: s3.env.S3_ACCESS_KEY_ID,
    secretAccessKey: SECRET,
  });
  t.like(created, { bucket, prefix: '', endpoint: s3.endpoint });
  t.deepEqual(await client.account.destinations.get(created.id), created);
  t.deepEqual(await client.account.destinations.list(), [created]);

  const result = await client.tools.store('qr-generate', QR, created.id);
  t.like(result, {
    stored: { bucket, key: `${result.requestId}/0.png`, contentType: 'image/png' },
    mimeType: 'image/png',
    charged: 1,
    balance: 9,
  });
  t.is(result.stored.size, (await objectBytes(bucket, result.stored.key)).bytes.length);

  await client.account.destinations.delete(created.id);
  const refused = await client.tools.store('qr-generate', QR, created.id).catch((err: unknown) => err);
  t.true(refused instanceof UtilityToolsError);
  t.like(refused, { status: 400, code: 'validation_failed' });
  t.deepEqual(await client.account.destinations.list(), []);
});

test("a batch with a destination writes each item's file to {prefix}/{batchId}/{index}, charged per item written; a foreign or file-less one is 400 naming /destination", async (t) => {
  t.timeout(3 * 60_000);
  const account = await newAccount(10);
  const bucket = await newBucket();
  const { body: destination } = await createDestination(account, body(bucket, { prefix: 'batch' }));
  const texts = ['first', 'second', 'third'];
  const created = await request('POST', '/api/v1/batches', {
    token: account.apiKey,
    body: { tool: 'qr-generate', items: texts.map((text) => ({ text })), defaults: { size: 128 }, destination: destination.id },
  });
  t.is(created.status, 202, JSON.stringify(created.body));
  t.is(created.body.destination, destination.id);
  const batchId: string = created.body.id;
  const done = await eventually(
    () => request('GET', `/api/v1/batches/${batchId}`, { token: account.apiKey }),
    (res) => res.body.status === 'completed',
    120_000,
    'the batch to complete',
  );
  t.like(done.body, { counts: { succeeded: 3, failed: 0, skipped: 0 }, charged: 3 });
  t.is(await balanceOf(account), 7);
  const keys = texts.map((_, index) => `batch/${batchId}/${index}.png`);
  t.deepEqual(await objectKeys(bucket), keys);
  const items = await request('GET', `/api/v1/batches/${batchId}/items`, { token: account.apiKey });
  for (const item of items.body.items) {
    t.like(item.output, { stored: { bucket, key: keys[item.index], contentType: 'image/png' }, mimeType: 'image/png' });
    const { bytes } = await objectBytes(bucket, keys[item.index]!);
    t.is(item.output.stored.size, bytes.length);
  }

  const other = await newAccount(10);
  for (const [tool, items] of [
    ['qr-generate', [{ text: 'x' }]],
    ['hash-text', [{ text: 'x' }]],
  ] as const) {
    const refused = await request('POST', '/api/v1/batches', {
      token: (tool === 'qr-generate' ? other : account).apiKey,
      body: { tool, items, destination: destination.id },
    });
    t.true(isProblem(refused, 400, 'validation_failed'), JSON.stringify(refused.body));
    t.deepEqual(
      refused.body.errors.map((e: { field: string }) => e.field),
      ['/destination'],
    );
  }
  t.is(await balanceOf(other), 10);
});
