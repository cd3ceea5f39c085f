//! Destinations: the account's own bucket, on a real S3-compatible server (S3Proxy on the fixtures'
//! address, which the stack's target guard lets through). Created only after a test upload the
//! bucket accepts, the secret never shown again and stored only sealed; a call with
//! `Output-Destination` writes its file there and answers where, charged only once it is written;
//! a refused write is refunded; an unknown, foreign or unusable destination starts nothing.
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { DeleteBucketCommand, GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { UtilityTools, UtilityToolsError } from 'utility-tools/client';
import { apiUrl, balanceOf, callTool, isProblem, newAccount, request, type TestAccount, type UncheckedJson } from '../helpers/api.js';
import { FIXTURE_HOST } from '../fixtures/http-pages.js';
import { FIXTURE_NAMES } from '../fixtures/dns-server.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { withServiceDb } from '../helpers/db.js';
import { workflowHistoryText } from '../helpers/temporal.js';
import { startS3Server, type S3Server } from '../fixtures/s3-server.js';
import { startFileServer, type FileServer } from '../fixtures/file-server.js';
import { makeImage } from '../fixtures/images.js';

/** The key pair's secret: unique to this run, so finding it anywhere is this suite's leak. */
const SECRET = `s3-secret-${randomBytes(12).toString('hex')}`;
const QR = { text: 'https://example.com/destinations', size: 128 };

let s3: S3Server;
let files: FileServer;
let buckets = 0;

test.before(async () => {
  [s3, files] = await Promise.all([startS3Server({ host: FIXTURE_HOST, secretKey: SECRET }), startFileServer()]);
});

test.after.always(async () => {
  await Promise.all([s3?.stop(), files?.close()]);
});

/** A new empty bucket of its own for each test. */
async function newBucket(): Promise<string> {
  const name = `dest-${++buckets}-${randomBytes(3).toString('hex')}`;
  await s3.createBucket(name);
  return name;
}

const body = (bucket: string, extra: Record<string, unknown> = {}) => ({
  type: 's3',
  bucket,
  endpoint: s3.endpoint,
  accessKeyId: s3.env.S3_ACCESS_KEY_ID,
  secretAccessKey: SECRET,
  ...extra,
});

function createDestination(account: TestAccount, fields: Record<string, unknown>) {
  return request('POST', '/api/v1/account/destinations', { token: account.ownerToken, body: fields });
}

async function objectKeys(bucket: string): Promise<string[]> {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: bucket }));
  return (listed.Contents ?? []).map((o) => o.Key!).sort();
}

async function objectBytes(bucket: string, key: string): Promise<{ bytes: Buffer; contentType?: string }> {
  const got = await s3.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return { bytes: Buffer.from(await got.Body!.transformToByteArray()), contentType: got.ContentType };
}

test('a destination is created after its test upload; no answer shows the secret, the database holds it only sealed', async (t) => {
  const account = await newAccount();
  const bucket = await newBucket();
  const created = await createDestination(account, body(bucket, { prefix: 'renders/2026' }));
  t.is(created.status, 201, JSON.stringify(created.body));
  t.regex(created.body.id, /^dst_[0-9A-Za-z]{22}$/);
  t.like(created.body, {
    type: 's3',
    bucket,
    prefix: 'renders/2026',
    endpoint: s3.endpoint,
    region: 'us-east-1',
    accessKeyId: s3.env.S3_ACCESS_KEY_ID,
  });
  t.false(JSON.stringify(created.body).includes(SECRET));
  t.false('secretAccessKey' in created.body);

  const listed = await request('GET', '/api/v1/account/destinations', { token: account.ownerToken });
  t.deepEqual(listed.body, [created.body]);
  const one = await request('GET', `/api/v1/account/destinations/${created.body.id}`, { token: account.ownerToken });
  t.deepEqual(one.body, created.body);
  // The test object was deleted again (the key may delete here).
  t.deepEqual(await objectKeys(bucket), []);

  await withServiceDb(async (db) => {
    const doc = await db.collection('destinations').findOne({ _id: created.body.id });
    t.truthy(doc);
    t.regex(doc!.secretSealed, /^v1\./);
    for (const { name } of await db.listCollections().toArray()) {
      const dump = JSON.stringify(await db.collection(name).find({}).toArray());
      t.false(dump.includes(SECRET), `collection ${name} holds the secret`);
    }
  });
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
  const done = await eventually(
    () => request('GET', `/api/v1/calls/${encodeURIComponent(requestId)}`, { token: account.apiKey }),
    (res) => res.status !== 200 || res.body.status !== 'running',
    60_000,
    `call ${requestId} to end`,
  );
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

test("a bucket that refuses the test upload is 422 destination_unusable with S3's reason, and nothing is created", async (t) => {
  const account = await newAccount();
  const bucket = await newBucket();
  const missing = await createDestination(account, body('no-such-bucket-here'));
  t.true(isProblem(missing, 422, 'destination_unusable'), JSON.stringify(missing.body));
  t.regex(missing.body.reason, /^NoSuchBucket: /);
  const wrongSecret = await createDestination(account, body(bucket, { secretAccessKey: `${SECRET}-not` }));
  t.true(isProblem(wrongSecret, 422, 'destination_unusable'), JSON.stringify(wrongSecret.body));
  t.regex(wrongSecret.body.reason, /SignatureDoesNotMatch|AccessDenied|InvalidAccessKeyId/);
  t.false(JSON.stringify(wrongSecret.body).includes(SECRET));
  const listed = await request('GET', '/api/v1/account/destinations', { token: account.ownerToken });
  t.deepEqual(listed.body, []);
});

test('every field is validated: 400 validation_failed naming it; an endpoint the guard refuses is 422 target_not_allowed', async (t) => {
  const account = await newAccount();
  const cases: [Record<string, unknown>, string][] = [
    [{ ...body('ok-bucket'), type: 'gcs' }, '/type'],
    [{ ...body('ok-bucket'), bucket: 'Not_A_Bucket' }, '/bucket'],
    [{ ...body('ok-bucket'), bucket: 'a..b' }, '/bucket'],
    [{ ...body('ok-bucket'), prefix: '/leading' }, '/prefix'],
    [{ ...body('ok-bucket'), prefix: 'a/../b' }, '/prefix'],
    [{ ...body('ok-bucket'), region: 'EU West' }, '/region'],
    [{ ...body('ok-bucket'), accessKeyId: 'has space' }, '/accessKeyId'],
    [{ ...body('ok-bucket'), secretAccessKey: '' }, '/secretAccessKey'],
    [{ ...body('ok-bucket'), endpoint: 'not a url' }, '/endpoint'],
    [{ ...body('ok-bucket'), endpoint: `${s3.endpoint}/some/path` }, '/endpoint'],
    [{ ...body('ok-bucket'), endpoint: `ftp://${FIXTURE_HOST}/` }, '/endpoint'],
    [{ ...body('ok-bucket'), surprise: 1 }, '/surprise'],
  ];
  for (const [fields, field] of cases) {
    const res = await createDestination(account, fields);
    t.true(isProblem(res, 400, 'validation_failed'), `${field}: ${JSON.stringify(res.body)}`);
    t.true(
      res.body.errors.some((e: { field: string }) => e.field === field),
      `${field}: ${JSON.stringify(res.body.errors)}`,
    );
  }
  const { secretAccessKey: _s, ...withoutSecret } = body('ok-bucket');
  const missing = await createDestination(account, withoutSecret);
  t.true(isProblem(missing, 400, 'validation_failed'));
  t.true(
    missing.body.errors.some((e: { field: string }) => e.field === '/secretAccessKey'),
    JSON.stringify(missing.body.errors),
  );

  // Loopback outside the allowlist (127.0.0.1: where the stack's own database and Temporal are),
  // the metadata address, and a public-looking name whose CNAME leads to a private address.
  const port = new URL(s3.endpoint).port;
  for (const endpoint of [`http://127.0.0.1:${port}`, 'http://169.254.169.254', `https://${FIXTURE_NAMES.aliasPrivate}:${port}`]) {
    const refused = await createDestination(account, body('ok-bucket', { endpoint }));
    t.true(isProblem(refused, 422, 'target_not_allowed'), `${endpoint}: ${JSON.stringify(refused.body)}`);
  }
  t.deepEqual((await request('GET', '/api/v1/account/destinations', { token: account.ownerToken })).body, []);
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

test("destinations are the owner's: no token is 401, an API key 403; a body that is not JSON is 415, one over 1 MiB 413", async (t) => {
  const account = await newAccount();
  t.true(isProblem(await request('POST', '/api/v1/account/destinations', { body: body('ok-bucket') }), 401, 'unauthorized'));
  t.true(isProblem(await request('GET', '/api/v1/account/destinations', { token: account.apiKey }), 403, 'forbidden'));
  t.true(
    isProblem(await request('POST', '/api/v1/account/destinations', { token: account.apiKey, body: body('ok-bucket') }), 403, 'forbidden'),
  );
  const form = await request('POST', '/api/v1/account/destinations', {
    token: account.ownerToken,
    rawBody: 'type=s3',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.true(isProblem(form, 415, 'unsupported_media_type'), JSON.stringify(form.body));
  const huge = await createDestination(account, body('ok-bucket', { prefix: 'x'.repeat(1024 * 1024 + 1) }));
  t.true(isProblem(huge, 413, 'payload_too_large'), JSON.stringify(huge.body));
  t.deepEqual((await request('GET', '/api/v1/account/destinations', { token: account.ownerToken })).body, []);
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

test('creating and deleting a destination are in the audit log, with the owner, the bucket and never the secret', async (t) => {
  const account = await newAccount();
  const bucket = await newBucket();
  const created = await request('POST', '/api/v1/account/destinations', {
    token: account.ownerToken,
    body: body(bucket, { prefix: 'audited' }),
    headers: { 'user-agent': 'dest-audit/1.0' },
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.is((await request('DELETE', `/api/v1/account/destinations/${created.body.id}`, { token: account.ownerToken })).status, 204);

  const log = await request('GET', '/api/v1/account/audit-log?limit=100', { token: account.ownerToken });
  const entries = (log.body.items as UncheckedJson[]).filter((e) => e.target.type === 'destination');
  t.deepEqual(
    entries.map((e) => e.action),
    ['destination.deleted', 'destination.created'],
  );
  t.true(
    entries.every(
      (e) =>
        e.target.id === created.body.id &&
        e.actor.type === 'owner' &&
        e.actor.credential === account.ownerToken.slice(0, e.actor.credential.length),
    ),
  );
  t.is(entries[1].userAgent, 'dest-audit/1.0');
  t.deepEqual(entries[1].changes, {
    bucket: [null, bucket],
    prefix: [null, 'audited'],
    endpoint: [null, s3.endpoint],
    region: [null, 'us-east-1'],
    accessKeyId: [null, s3.env.S3_ACCESS_KEY_ID],
  });
  t.deepEqual(entries[0].changes, { bucket: [bucket, null], prefix: ['audited', null] });
  t.false(JSON.stringify(log.body).includes(SECRET), 'never the secret access key');
  t.true((await request('GET', '/api/v1/account/audit-log/verify', { token: account.ownerToken })).body.ok);
  const left = await withServiceDb((db) => db.collection('accounts').findOne({ _id: account.id as never }));
  t.deepEqual(left?.auditDeletions ?? [], [], 'the deletion draft is settled');
});
