//! The destinations' test bed (test/api/destinations-*.test.ts): the account's own bucket on a real
//! S3-compatible server (S3Proxy on the fixtures' address, which the stack's target guard lets
//! through), a key pair whose secret is unique to the run, a new bucket per test, and reads of what
//! the bucket holds.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { request, type TestAccount } from '../../helpers/api.js';
import { FIXTURE_HOST } from '../../fixtures/http-pages.js';
import { startS3Server, type S3Server } from '../../fixtures/s3-server.js';

/** The key pair's secret: unique to this run, so finding it anywhere is this suite's leak. */
export const SECRET = `s3-secret-${randomBytes(12).toString('hex')}`;
export const QR = { text: 'https://example.com/destinations', size: 128 };

export let s3: S3Server;
let buckets = 0;

test.before(async () => {
  s3 = await startS3Server({ host: FIXTURE_HOST, secretKey: SECRET });
});

test.after.always(async () => {
  await s3?.stop();
});

/** A new empty bucket of its own for each test. */
export async function newBucket(): Promise<string> {
  const name = `dest-${++buckets}-${randomBytes(3).toString('hex')}`;
  await s3.createBucket(name);
  return name;
}

/** A destination's creation body for `bucket` on the test server, with `extra` fields over it. */
export const body = (bucket: string, extra: Record<string, unknown> = {}) => ({
  type: 's3',
  bucket,
  endpoint: s3.endpoint,
  accessKeyId: s3.env.S3_ACCESS_KEY_ID,
  secretAccessKey: SECRET,
  ...extra,
});

export function createDestination(account: TestAccount, fields: Record<string, unknown>) {
  return request('POST', '/api/v1/account/destinations', { token: account.ownerToken, body: fields });
}

export async function objectKeys(bucket: string): Promise<string[]> {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: bucket }));
  return (listed.Contents ?? []).map((o) => o.Key!).sort();
}

export async function objectBytes(bucket: string, key: string): Promise<{ bytes: Buffer; contentType?: string }> {
  const got = await s3.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return { bytes: Buffer.from(await got.Body!.transformToByteArray()), contentType: got.ContentType };
}
