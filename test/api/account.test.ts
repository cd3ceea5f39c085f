//! The account API (owner token) and the operator API (admin token) through HTTP.
import test from 'ava';
import { MongoClient } from 'mongodb';
import { adminToken, callTool, isProblem, newAccount, request } from '../helpers/api.js';

async function eventsOf(accountId: string) {
  const mongo = await MongoClient.connect(process.env.MONGODB_URL!);
  try {
    const db = mongo.db(new URL(process.env.MONGODB_URL!).pathname.slice(1) || 'utility_tools');
    return await db.collection('events').find({ accountId }).sort({ createdAt: 1 }).toArray();
  } finally {
    await mongo.close();
  }
}

test('the operator opens an account with an owner token and an API key shown once', async (t) => {
  const res = await request('POST', '/api/v1/admin/accounts', {
    token: adminToken(),
    body: { name: 'Acme', email: 'ops@acme.test', credits: 30 },
  });
  t.is(res.status, 201);
  t.like(res.body.account, { name: 'Acme', balance: 30 });
  t.regex(res.body.ownerToken, /^uto_[0-9A-Za-z]{40}$/);
  t.regex(res.body.apiKey.key, /^utk_[0-9A-Za-z]{40}$/);
  t.is(res.body.apiKey.prefix, res.body.apiKey.key.slice(0, 12));
  const read = await request('GET', `/api/v1/admin/accounts/${res.body.account.id}`, { token: adminToken() });
  t.like(read.body, { id: res.body.account.id, name: 'Acme', balance: 30 });
  t.false(JSON.stringify(read.body).includes(res.body.apiKey.key));
});

test('a new account without credits gets FREE_CREDITS', async (t) => {
  const res = await request('POST', '/api/v1/admin/accounts', { token: adminToken() });
  t.is(res.status, 201);
  t.is(res.body.account.balance, Number(process.env.FREE_CREDITS ?? 100));
});

test('the operator API refuses other credentials and bad bodies', async (t) => {
  const account = await newAccount(5);
  t.true(isProblem(await request('POST', '/api/v1/admin/accounts', { body: {} }), 401, 'unauthorized'));
  t.true(isProblem(await request('POST', '/api/v1/admin/accounts', { token: account.ownerToken, body: {} }), 401, 'unauthorized'));
  t.true(
    isProblem(await request('POST', '/api/v1/admin/accounts', { token: adminToken(), body: { credits: -1 } }), 400, 'validation_failed'),
  );
  t.true(isProblem(await request('GET', '/api/v1/admin/accounts/acc_nope', { token: adminToken() }), 404, 'not_found'));
  const bad = await request('POST', `/api/v1/admin/accounts/${account.id}/credits`, {
    token: adminToken(),
    body: { amount: 0, reason: 'gift' },
  });
  t.true(isProblem(bad, 400, 'validation_failed'));
  t.deepEqual(bad.body.errors.map((e: { field: string }) => e.field).sort(), ['/amount', '/reason']);
});

test('a grant adds credits and records credits.granted', async (t) => {
  const account = await newAccount(5);
  const res = await request('POST', `/api/v1/admin/accounts/${account.id}/credits`, {
    token: adminToken(),
    body: { amount: 20, reason: 'purchase' },
  });
  t.is(res.status, 200);
  t.like(res.body, { balance: 25, grant: { amount: 20, reason: 'purchase', expiresAt: null } });
  const granted = (await eventsOf(account.id)).filter((e) => e.event === 'credits.granted');
  t.is(granted.length, 1);
  t.deepEqual(granted[0]!.data, { amount: 20, reason: 'purchase', balance: 25 });
});

test('the owner reads the account with its threshold', async (t) => {
  const account = await newAccount(42);
  const res = await request('GET', '/api/v1/account', { token: account.ownerToken });
  t.is(res.status, 200);
  t.like(res.body, { id: account.id, balance: 42, lowBalanceThreshold: 25 });
  t.truthy(Date.parse(res.body.createdAt));
});

test('keys: create shows the key once, list shows prefix and last use, revoke fires once', async (t) => {
  const account = await newAccount(10);
  const created = await request('POST', '/api/v1/account/keys', { token: account.ownerToken, body: { name: 'ci' } });
  t.is(created.status, 201);
  t.like(created.body, { name: 'ci' });
  t.regex(created.body.key, /^utk_/);
  t.is((await callTool(created.body.key, 'hash-text', { text: 'x' })).status, 200);

  const listed = await request('GET', '/api/v1/account/keys', { token: account.ownerToken });
  const row = listed.body.find((k: { id: string }) => k.id === created.body.id);
  t.like(row, { name: 'ci', prefix: created.body.key.slice(0, 12), revokedAt: null });
  t.truthy(row.lastUsedAt);
  t.false(JSON.stringify(listed.body).includes(created.body.key));
  t.false('key' in row);

  const first = await request('DELETE', `/api/v1/account/keys/${created.body.id}`, { token: account.ownerToken });
  const second = await request('DELETE', `/api/v1/account/keys/${created.body.id}`, { token: account.ownerToken });
  t.is(first.status, 200);
  t.is(second.status, 200);
  t.is(second.body.revokedAt, first.body.revokedAt);
  t.true(isProblem(await request('DELETE', '/api/v1/account/keys/key_nope', { token: account.ownerToken }), 404, 'not_found'));

  const events = await eventsOf(account.id);
  const created_ = events.filter((e) => e.event === 'api_key.created');
  const revoked = events.filter((e) => e.event === 'api_key.revoked');
  t.is(created_.length, 2); // the default key of the account and this one
  t.is(revoked.length, 1);
  t.deepEqual(revoked[0]!.data, { keyId: created.body.id, name: 'ci', prefix: created.body.key.slice(0, 12) });
});

test('a key of another account cannot be revoked', async (t) => {
  const a = await newAccount(5);
  const b = await newAccount(5);
  t.true(isProblem(await request('DELETE', `/api/v1/account/keys/${b.apiKeyId}`, { token: a.ownerToken }), 404, 'not_found'));
  t.is((await callTool(b.apiKey, 'hash-text', { text: 'x' })).status, 200);
});

test('usage pages through the ledger newest first with a cursor', async (t) => {
  const account = await newAccount(20);
  for (let i = 0; i < 5; i++) t.is((await callTool(account.apiKey, 'hash-text', { text: `u${i}` })).status, 200);
  const first = await request('GET', '/api/v1/account/usage?limit=2', { token: account.ownerToken });
  t.is(first.body.items.length, 2);
  t.truthy(first.body.nextCursor);
  t.like(first.body.items[0], { tool: 'hash-text', credits: 1, outcome: 'charged' });
  const seen = [...first.body.items];
  let cursor = first.body.nextCursor;
  while (cursor) {
    const page = await request('GET', `/api/v1/account/usage?limit=2&cursor=${cursor}`, { token: account.ownerToken });
    seen.push(...page.body.items);
    cursor = page.body.nextCursor;
  }
  t.is(seen.length, 5);
  t.is(new Set(seen.map((i) => i.requestId)).size, 5);
  const times = seen.map((i) => Date.parse(i.at));
  t.deepEqual(
    times,
    [...times].sort((x, y) => y - x),
  );
  t.true(isProblem(await request('GET', '/api/v1/account/usage?limit=0', { token: account.ownerToken }), 400, 'validation_failed'));
  t.true(isProblem(await request('GET', '/api/v1/account/usage?cursor=zzz', { token: account.ownerToken }), 400, 'validation_failed'));
});
