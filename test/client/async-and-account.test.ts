//! Asynchronous calls through the client (handles, polling, `client.calls`), typed errors, and
//! the account API under the owner token, against the stack.
import test from 'ava';
import { UtilityTools, UtilityToolsError, verifyWebhook } from 'utility-tools/client';
import { verifyWebhook as fromWebhooks } from 'utility-tools/webhooks';
import { apiUrl, newAccount } from '../helpers/api.js';

async function client(credits = 100) {
  const account = await newAccount(credits);
  return new UtilityTools({ baseUrl: apiUrl(), apiKey: account.apiKey, ownerToken: account.ownerToken });
}

test('async: a handle polls until the call ends and answers its output and charge', async (t) => {
  const c = await client();
  const handle = await c.tools.qrGenerate.async({ text: 'later', size: 64 });
  t.is(handle.tool, 'qr-generate');
  t.regex(handle.requestId, /^call-/);
  t.truthy(handle.idempotencyKey);
  const out = await handle.result();
  t.like(out, { mimeType: 'image/png', size: 64, charged: 1, requestId: handle.requestId });
  t.deepEqual(Buffer.from(out.image), Buffer.from(out.imageBase64, 'base64'));
  const record = await c.calls.get(handle.requestId);
  t.like(record, { status: 'succeeded', tool: 'qr-generate', charged: 1 });
  const listed = await c.calls.list({ limit: 10 });
  t.true(listed.items.some((i) => i.requestId === handle.requestId));
  t.is((await c.account.get()).balance, 99);
});

test('async: starting again with the same key gives the same call', async (t) => {
  const c = await client();
  const first = await c.tools.hashText.async({ text: 'once' }, { idempotencyKey: 'client-async-once' });
  const again = await c.tools.hashText.async({ text: 'once' }, { idempotencyKey: 'client-async-once' });
  t.is(again.requestId, first.requestId);
  const [a, b] = await Promise.all([first.result(), again.result()]);
  t.is(a.hash, b.hash);
  t.is((await c.account.get()).balance, 99);
});

test('async: a call that fails throws its problem from result(), refunded', async (t) => {
  const c = await client();
  const handle = await c.tools.smtpTest.async({ host: 'fixture.test', port: 25 });
  const err = await t.throwsAsync(handle.result(), { instanceOf: UtilityToolsError });
  t.like(err, { status: 502, code: 'upstream_error', requestId: handle.requestId });
  t.is((await c.account.get()).balance, 100);
});

test("errors: one class with the problem's status, code, detail, request id and extras", async (t) => {
  const c = await client(1);
  const poor = await t.throwsAsync(c.tools.websiteScreenshot({ url: 'https://example.com' }), { instanceOf: UtilityToolsError });
  t.is(poor!.code, 'insufficient_credits');
  t.like(poor, { status: 402, balance: 1, cost: 25 });
  t.regex(poor!.detail, /25 credits/);
  t.truthy(poor!.requestId);
  t.is(poor!.problem?.requestId, poor!.requestId);

  const refused = await t.throwsAsync(c.tools.seoMeta({ url: 'http://10.0.0.1/' }), { instanceOf: UtilityToolsError });
  t.like(refused, { status: 422, code: 'target_not_allowed' });
  t.truthy(refused!.reason);

  const stranger = new UtilityTools({ baseUrl: apiUrl(), apiKey: 'utk_' + 'x'.repeat(40) });
  t.like(await t.throwsAsync(stranger.tools.hashText({ text: 'x' })), { status: 401, code: 'unauthorized' });
  const notFound = await t.throwsAsync(c.calls.get('call-nobody'), { instanceOf: UtilityToolsError });
  t.like(notFound, { status: 404, code: 'not_found' });
});

test('account: keys, webhooks, events and usage with the owner token', async (t) => {
  const c = await client();
  await c.tools.hashText({ text: 'for the ledger' });
  const usage = await c.account.usage({ limit: 5 });
  t.like(usage.items[0], { tool: 'hash-text', credits: 1 });

  const key = await c.account.keys.create({ name: 'from the client' });
  t.regex(key.key, /^utk_/);
  t.true((await c.account.keys.list()).some((k) => k.id === key.id && k.revokedAt === null));
  const revoked = await c.account.keys.revoke(key.id);
  t.is(revoked.id, key.id);
  t.truthy(revoked.revokedAt);

  const endpoint = await c.account.webhooks.create({ url: 'http://localhost:9/hooks' });
  t.regex(endpoint.secret, /^whsec_/);
  const updated = await c.account.webhooks.update(endpoint.id, { eventTypes: ['credits.low', 'api_key.created'] });
  t.is(updated.id, endpoint.id);
  t.true((await c.account.webhooks.list()).some((w) => w.id === endpoint.id));
  t.deepEqual(await c.account.webhooks.attempts(endpoint.id), []);
  await c.account.webhooks.delete(endpoint.id);
  t.false((await c.account.webhooks.list()).some((w) => w.id === endpoint.id));

  const events = await c.account.events.list({ type: 'api_key.created' });
  t.true(events.items.some((e) => (e.data as { keyId?: string }).keyId === key.id));

  await t.throwsAsync(new UtilityTools({ baseUrl: apiUrl() }).account.get(), { instanceOf: TypeError });
});

test('verifyWebhook is the webhooks export, re-exported', (t) => {
  t.is(verifyWebhook, fromWebhooks);
});
