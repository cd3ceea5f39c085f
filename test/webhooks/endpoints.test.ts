//! The account API for webhook endpoints against the running stack: registering (https with a
//! public address; localhost only while allowed), the signing secret shown once and stored
//! sealed, listing, deleting, Send test, re-enabling and the attempt log.
import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { isProblem, newAccount, request } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { testEnv } from '../helpers/env.js';
import { workflowHistoryText } from '../helpers/temporal.js';
import { attemptsOf, eventually, registerEndpoint, sendTest } from '../helpers/webhook-receiver.js';
import { receiverForFile } from '../helpers/receiver-for-file.js';
import { checkEndpointUrl } from '../../domain/webhooks/url-admission.js';
import { createResolver } from '../../lib/resolver.js';
import { createTargetGuard } from '../../lib/target-guard.js';
import { webhookWorkflowId } from '../../contracts/webhook-messages.js';

const receiver = receiverForFile();

// The endpoint's first fields plus two added later: the event types and the rotation's overlap end.
const ENDPOINT_FIELDS = ['consecutiveFailures', 'createdAt', 'disabledAt', 'eventTypes', 'id', 'previousSecretExpiresAt', 'status', 'url'];

test('registering an endpoint answers 201 with the endpoint and a whsec_ secret; list shows it without the secret', async (t) => {
  const account = await newAccount(10);
  const created = await request('POST', '/api/v1/account/webhooks', { token: account.ownerToken, body: { url: receiver.url('/created') } });
  t.is(created.status, 201);
  t.deepEqual(Object.keys(created.body).sort(), [...ENDPOINT_FIELDS, 'secret'].sort());
  t.like(created.body, { url: receiver.url('/created'), status: 'active', consecutiveFailures: 0, disabledAt: null });
  t.regex(created.body.id, /^whe_/);
  t.regex(created.body.secret, /^whsec_[A-Za-z0-9_-]{43}$/, 'whsec_ + 32 random bytes, base64url');
  t.is(Buffer.from(created.body.secret.slice(6), 'base64url').length, 32);
  t.truthy(Date.parse(created.body.createdAt));

  const list = await request('GET', '/api/v1/account/webhooks', { token: account.ownerToken });
  t.is(list.status, 200);
  t.is(list.body.length, 1);
  t.deepEqual(Object.keys(list.body[0]).sort(), ENDPOINT_FIELDS);
  t.is(list.body[0].id, created.body.id);
  t.false(JSON.stringify(list.body).includes(created.body.secret), 'the secret is shown once, at creation');

  // Nor does any later answer about the endpoint carry it.
  const enabled = await request('POST', `/api/v1/account/webhooks/${created.body.id}/enable`, { token: account.ownerToken });
  t.is(enabled.status, 200);
  t.false(JSON.stringify(enabled.body).includes(created.body.secret));
  const attempts = await request('GET', `/api/v1/account/webhooks/${created.body.id}/attempts`, { token: account.ownerToken });
  t.false(JSON.stringify(attempts.body).includes(created.body.secret));
  // Two endpoints never share a secret.
  const second = await registerEndpoint(account, receiver.url('/created-2'));
  t.not(second.secret, created.body.secret);
});

test('an https URL with a public address is accepted; private, loopback and metadata addresses are refused with 422', async (t) => {
  const account = await newAccount(10);
  // public.test resolves (through the fixture DNS server) to a public address.
  const ok = await request('POST', '/api/v1/account/webhooks', {
    token: account.ownerToken,
    body: { url: 'https://public.test/hooks/in' },
  });
  t.is(ok.status, 201);
  t.is(ok.body.url, 'https://public.test/hooks/in');
  t.is((await request('DELETE', `/api/v1/account/webhooks/${ok.body.id}`, { token: account.ownerToken })).status, 204);

  for (const url of [
    'https://private10.test/in',
    'https://10.0.0.1/in',
    'https://127.0.0.1/in',
    'https://loopback.test/in',
    'https://169.254.169.254/latest',
    'https://[::1]/in',
    'https://mapped.test/in',
  ]) {
    const res = await request('POST', '/api/v1/account/webhooks', { token: account.ownerToken, body: { url } });
    t.true(isProblem(res, 422, 'target_not_allowed'), `${url}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  const list = await request('GET', '/api/v1/account/webhooks', { token: account.ownerToken });
  t.deepEqual(list.body, [], 'nothing refused was stored');
});

test('bad URLs are refused with 400: not a URL, not https, credentials in it, a bad port, no url at all', async (t) => {
  const account = await newAccount(10);
  const bodies: unknown[] = [
    { url: 'not a url' },
    { url: '' },
    { url: '/relative/path' },
    { url: 'http://public.test/in' },
    { url: 'ftp://public.test/in' },
    { url: 'https://user:pass@public.test/in' },
    { url: 'https://public.test:0/in' },
    { url: 42 },
    {},
    { url: 'https://public.test/in', extra: true },
  ];
  for (const body of bodies) {
    const res = await request('POST', '/api/v1/account/webhooks', { token: account.ownerToken, body });
    t.true(isProblem(res, 400, 'validation_failed'), `${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.body)}`);
    t.true(Array.isArray(res.body.errors) && res.body.errors.length > 0, `${JSON.stringify(body)} names the bad field`);
  }
  t.true(
    isProblem(
      await request('POST', '/api/v1/account/webhooks', {
        token: account.ownerToken,
        rawBody: '{',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_json',
    ),
  );
  t.deepEqual((await request('GET', '/api/v1/account/webhooks', { token: account.ownerToken })).body, []);
});

test('localhost URLs (any scheme) are accepted only while WEBHOOKS_ALLOW_LOCALHOST is on', async (t) => {
  const account = await newAccount(10);
  // This stack runs with it on.
  for (const url of ['http://localhost:9/in', 'https://localhost:9/in', 'http://api.localhost:9/in']) {
    const res = await request('POST', '/api/v1/account/webhooks', { token: account.ownerToken, body: { url } });
    t.is(res.status, 201, url);
  }
  // The rule itself, with it off (production): refused as a loopback target.
  const guard = createTargetGuard({ allowlist: [], resolver: createResolver({ servers: [] }) });
  const off = { guard, allowLocalhost: false };
  for (const url of ['http://localhost:9/in', 'https://localhost/in', 'https://x.localhost/in']) {
    const err = await t.throwsAsync(checkEndpointUrl(url, off));
    t.like(err, { code: 'target_not_allowed' }, url);
  }
  t.is(await checkEndpointUrl('http://localhost:9/in', { guard, allowLocalhost: true }), 'http://localhost:9/in');
});

test('the signing secret is stored sealed: not in the database, the endpoint workflow history or the logs', async (t) => {
  const account = await newAccount(10);
  const endpoint = await registerEndpoint(account, receiver.url('/sealed'));
  await sendTest(account, endpoint.id);
  await receiver.waitFor((all) => all.some((d) => d.path === '/sealed'), 20_000, 'test delivery');

  await withServiceDb(async (db) => {
    const doc = await db.collection('webhook_endpoints').findOne({ _id: endpoint.id as never });
    t.truthy(doc);
    t.is(typeof doc!.secretSealed, 'string');
    t.false(JSON.stringify(doc).includes(endpoint.secret));
    const raw = endpoint.secret.slice('whsec_'.length);
    for (const { name } of await db.listCollections().toArray()) {
      const dump = JSON.stringify(await db.collection(name).find({}).toArray());
      t.false(dump.includes(raw), `collection ${name} holds the signing secret`);
      t.false(dump.includes(Buffer.from(endpoint.secret).toString('base64')), `collection ${name} holds the signing secret in base64`);
    }
  });

  const history = await workflowHistoryText(webhookWorkflowId(endpoint.id));
  t.true(history.includes('webhook.test'), 'the payloads were decoded');
  t.false(history.includes(endpoint.secret.slice(6)), 'the workflow history holds the signing secret');
  t.false(history.includes(Buffer.from(endpoint.secret).toString('base64')), 'the workflow history holds the signing secret in base64');

  for (const file of (await readdir(testEnv.stackLogDir())).filter((f) => f.endsWith('.log'))) {
    t.false(
      (await readFile(path.join(testEnv.stackLogDir(), file), 'utf8')).includes(endpoint.secret.slice(6)),
      `${file} holds the signing secret`,
    );
  }
});

test('Send test answers 202 with the event id and the endpoint receives webhook.test', async (t) => {
  const account = await newAccount(10);
  const endpoint = await registerEndpoint(account, receiver.url('/send-test'));
  const res = await request('POST', `/api/v1/account/webhooks/${endpoint.id}/test`, { token: account.ownerToken });
  t.is(res.status, 202);
  t.deepEqual(Object.keys(res.body), ['eventId']);
  t.regex(res.body.eventId, /^evt_/);
  const [delivery] = (await receiver.waitFor((all) => all.some((d) => d.path === '/send-test'), 20_000, 'webhook.test')).filter(
    (d) => d.path === '/send-test',
  );
  t.is(delivery!.headers['x-service-event'], 'webhook.test');
  t.is(delivery!.headers['x-service-event-id'], res.body.eventId);
  t.like(delivery!.body, { id: res.body.eventId, event: 'webhook.test', data: { endpointId: endpoint.id } });
  t.is(typeof delivery!.body.data.message, 'string');
});

test('Send test goes only to the endpoint it names', async (t) => {
  const account = await newAccount(10);
  const a = await registerEndpoint(account, receiver.url('/only-a'));
  await registerEndpoint(account, receiver.url('/only-b'));
  const eventId = await sendTest(account, a.id);
  await receiver.waitFor((all) => all.some((d) => d.path === '/only-a'), 20_000, 'webhook.test at a');
  await eventually(
    () => attemptsOf(account, a.id),
    (rows) => rows.length === 1,
    10_000,
    'one attempt at a',
  );
  t.is(receiver.deliveries('/only-b').length, 0);
  t.is(receiver.deliveries('/only-a')[0]!.body.id, eventId);
});

test('deleting an endpoint answers 204, drops it from the list, and nothing more is posted to it', async (t) => {
  const account = await newAccount(10);
  const endpoint = await registerEndpoint(account, receiver.url('/deleted'));
  const res = await request('DELETE', `/api/v1/account/webhooks/${endpoint.id}`, { token: account.ownerToken });
  t.is(res.status, 204);
  t.deepEqual((await request('GET', '/api/v1/account/webhooks', { token: account.ownerToken })).body, []);
  t.true(isProblem(await request('DELETE', `/api/v1/account/webhooks/${endpoint.id}`, { token: account.ownerToken }), 404, 'not_found'));
  t.true(isProblem(await request('POST', `/api/v1/account/webhooks/${endpoint.id}/test`, { token: account.ownerToken }), 404, 'not_found'));
  t.true(
    isProblem(await request('POST', `/api/v1/account/webhooks/${endpoint.id}/enable`, { token: account.ownerToken }), 404, 'not_found'),
  );
  t.true(
    isProblem(await request('GET', `/api/v1/account/webhooks/${endpoint.id}/attempts`, { token: account.ownerToken }), 404, 'not_found'),
  );
  // An event of the account after the deletion reaches nobody.
  t.is((await request('POST', '/api/v1/account/keys', { token: account.ownerToken, body: { name: 'after delete' } })).status, 201);
  await new Promise((r) => setTimeout(r, 3000));
  t.is(receiver.deliveries('/deleted').length, 0);
});

test('re-enabling an active endpoint answers 200 with it, count 0', async (t) => {
  const account = await newAccount(10);
  const endpoint = await registerEndpoint(account, receiver.url('/enable-active'));
  const res = await request('POST', `/api/v1/account/webhooks/${endpoint.id}/enable`, { token: account.ownerToken });
  t.is(res.status, 200);
  t.deepEqual(Object.keys(res.body).sort(), ENDPOINT_FIELDS);
  t.like(res.body, { id: endpoint.id, status: 'active', consecutiveFailures: 0, disabledAt: null });
  await sendTest(account, endpoint.id);
  await receiver.waitFor((all) => all.some((d) => d.path === '/enable-active'), 20_000, 'test after enable');
  t.pass();
});

test('attempts are listed newest first with status code and duration, and limit bounds the list', async (t) => {
  const account = await newAccount(10);
  const endpoint = await registerEndpoint(account, receiver.url('/attempts'));
  // The last of three fails, and its retry (5 s later) succeeds: the list ends whole, whatever the
  // test's pace (a failure in the middle would let its retry land among the later attempts).
  receiver.behave('/attempts', (_d, n) => ({ status: n === 3 ? 503 : 204 }));
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push(await sendTest(account, endpoint.id));
    // One at a time, so the attempt order is the sending order.
    await eventually(
      () => attemptsOf(account, endpoint.id),
      (rows) => rows.length >= i + 1,
      20_000,
      `attempt ${i + 1}`,
    );
  }
  const all = await eventually(
    () => attemptsOf(account, endpoint.id),
    (rows) => rows.length >= 4,
    60_000,
    'the retry',
  );
  t.is(all.length, 4);
  t.deepEqual(Object.keys(all[0]).sort(), [
    'attemptedAt',
    'durationMs',
    'error',
    'event',
    'eventId',
    'id',
    'statusCode',
    'success',
    'trigger',
  ]);
  t.deepEqual(
    all.map((a) => a.eventId),
    [ids[2], ids[2], ids[1], ids[0]],
    'newest first',
  );
  const times = all.map((a) => Date.parse(a.attemptedAt));
  t.true(times[0]! >= times[1]! && times[1]! >= times[2]! && times[2]! >= times[3]!);
  t.deepEqual(
    all.map((a) => [a.statusCode, a.success]),
    [
      [204, true],
      [503, false],
      [204, true],
      [204, true],
    ],
  );
  t.is(all[1].error, 'The receiver answered HTTP 503.');
  t.is(all[0].error, null);
  for (const a of all) {
    t.is(a.event, 'webhook.test');
    t.true(Number.isInteger(a.durationMs) && a.durationMs >= 0);
  }
  const two = await attemptsOf(account, endpoint.id, 2);
  t.deepEqual(
    two.map((a) => a.id),
    all.slice(0, 2).map((a) => a.id),
  );
  t.true(
    isProblem(
      await request('GET', `/api/v1/account/webhooks/${endpoint.id}/attempts?limit=0`, { token: account.ownerToken }),
      400,
      'validation_failed',
    ),
  );
  t.true(
    isProblem(
      await request('GET', `/api/v1/account/webhooks/${endpoint.id}/attempts?limit=abc`, { token: account.ownerToken }),
      400,
      'validation_failed',
    ),
  );
});

test('webhook routes need the owner token: none is 401, an API key is 403, another account gets 404', async (t) => {
  const account = await newAccount(10);
  const other = await newAccount(10);
  const endpoint = await registerEndpoint(account, receiver.url('/auth'));
  t.true(isProblem(await request('GET', '/api/v1/account/webhooks'), 401, 'unauthorized'));
  t.true(isProblem(await request('GET', '/api/v1/account/webhooks', { token: account.apiKey }), 403, 'forbidden'));
  t.true(
    isProblem(
      await request('POST', '/api/v1/account/webhooks', { token: account.apiKey, body: { url: receiver.url('/x') } }),
      403,
      'forbidden',
    ),
  );
  t.deepEqual((await request('GET', '/api/v1/account/webhooks', { token: other.ownerToken })).body, []);
  for (const [method, suffix] of [
    ['DELETE', ''],
    ['POST', '/test'],
    ['POST', '/enable'],
    ['GET', '/attempts'],
  ] as const) {
    t.true(
      isProblem(await request(method, `/api/v1/account/webhooks/${endpoint.id}${suffix}`, { token: other.ownerToken }), 404, 'not_found'),
      `${method} ${suffix}`,
    );
  }
  t.is((await request('GET', '/api/v1/account/webhooks', { token: account.ownerToken })).body.length, 1);
});
