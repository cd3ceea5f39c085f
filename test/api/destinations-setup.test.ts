//! Destinations, set up: created only after a test upload the bucket accepts, the secret never
//! shown again and stored only sealed; every field validated, an endpoint the guard refuses or a
//! bucket that refuses the upload creates nothing; the owner's alone; in the audit log.
import test from 'ava';
import { isProblem, newAccount, request, type UncheckedJson } from '../helpers/api.js';
import { FIXTURE_HOST } from '../fixtures/http-pages.js';
import { FIXTURE_NAMES } from '../fixtures/dns-server.js';
import { withServiceDb } from '../helpers/db.js';
import { body, createDestination, newBucket, objectKeys, s3, SECRET } from './support/s3-destinations.js';

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
