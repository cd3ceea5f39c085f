//! `verifyWebhook` as a receiver imports it: by the package name, `utility-tools/webhooks`
//! (package.json `exports`; the compiled file after `npm run build`, the source under the
//! tests' `utility-tools-source` condition).
import test from 'ava';
import { createHmac } from 'node:crypto';
import { verifyWebhook } from 'utility-tools/webhooks';

const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64url');
const body = JSON.stringify({ id: 'evt_1', event: 'webhook.test', createdAt: '2026-01-02T03:04:05.000+00:00', data: { message: 'hi' } });
const now = Date.UTC(2026, 0, 2, 3, 4, 5);
const timestamp = String(Math.floor(now / 1000));
const signature = 'sha256=' + createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

test('verifyWebhook from utility-tools/webhooks accepts a delivery signed with HMAC-SHA256 of "<timestamp>.<raw body>"', (t) => {
  t.true(verifyWebhook(secret, { 'x-service-timestamp': timestamp, 'x-service-signature': signature }, body, now));
  // Header names in any case, as Node, fetch and frameworks hand them over; Buffer bodies too.
  t.true(verifyWebhook(secret, { 'X-Service-Timestamp': timestamp, 'X-Service-Signature': signature }, Buffer.from(body), now + 299_000));
  t.true(verifyWebhook(secret, new Headers({ 'X-Service-Timestamp': timestamp, 'X-Service-Signature': signature }), body, now - 299_000));
});

test('verifyWebhook refuses a changed body, another secret, a stale or future timestamp, missing headers', (t) => {
  const headers = { 'x-service-timestamp': timestamp, 'x-service-signature': signature };
  t.false(verifyWebhook(secret, headers, body.replace('hi', 'ho'), now));
  t.false(verifyWebhook(secret, headers, JSON.stringify(JSON.parse(body), null, 1), now), 're-serialised JSON is not the raw body');
  t.false(verifyWebhook('whsec_other', headers, body, now));
  t.false(verifyWebhook(secret, headers, body, now + 300_000), '300 s or more old');
  t.false(verifyWebhook(secret, headers, body, now - 300_000), '300 s or more ahead');
  t.false(
    verifyWebhook(secret, { ...headers, 'x-service-timestamp': String(Number(timestamp) + 1) }, body, now),
    'the timestamp is signed',
  );
  t.false(verifyWebhook(secret, { 'x-service-timestamp': timestamp }, body, now));
  t.false(verifyWebhook(secret, { 'x-service-signature': signature }, body, now));
  t.false(verifyWebhook(secret, { ...headers, 'x-service-signature': signature.toUpperCase() }, body, now));
  t.false(verifyWebhook(secret, { ...headers, 'x-service-signature': signature.slice(0, -2) }, body, now));
});

test('during a rotation verifyWebhook finds either secret in X-Service-Signatures, and takes several secrets', (t) => {
  const newSecret = 'whsec_' + Buffer.alloc(32, 9).toString('base64url');
  const newSignature = 'sha256=' + createHmac('sha256', newSecret).update(`${timestamp}.${body}`).digest('hex');
  // As the service sends it in the overlap: the one-value header under the previous secret, both listed.
  const headers = {
    'x-service-timestamp': timestamp,
    'x-service-signature': signature,
    'x-service-signatures': `${newSignature}, ${signature}`,
  };
  t.true(verifyWebhook(secret, headers, body, now), 'a receiver on the previous secret');
  t.true(verifyWebhook(newSecret, headers, body, now), 'a receiver on the new secret');
  t.true(verifyWebhook([newSecret, secret], headers, body, now), 'a receiver holding both');
  t.false(verifyWebhook('whsec_other', headers, body, now));
  t.false(verifyWebhook(newSecret, headers, body.replace('hi', 'ho'), now), 'every listed signature covers the body');
  t.false(verifyWebhook(newSecret, { ...headers, 'x-service-timestamp': String(Number(timestamp) + 1) }, body, now));
  // Node joins a repeated header into an array: each value counts.
  t.true(verifyWebhook(newSecret, { 'x-service-timestamp': timestamp, 'x-service-signatures': [signature, newSignature] }, body, now));
  t.false(verifyWebhook(newSecret, { 'x-service-timestamp': timestamp, 'x-service-signatures': 'sha256=00, ,' }, body, now));
});
