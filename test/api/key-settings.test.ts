//! An API key's settings over HTTP, against the running stack: which tools it calls, until when,
//! how fast, how many credits a month (held like the balance: concurrent calls never overshoot,
//! a refund gives credits back) and from where; bad settings are 400 naming the field; a change is
//! in force at once; usage names the key and filters by it.
import test from 'ava';
import { callTool, isProblem, newAccount, request, type TestAccount } from '../helpers/api.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { closedPort } from '../fixtures/http-pages.js';

async function newKey(account: TestAccount, settings: Record<string, unknown>) {
  const res = await request('POST', '/api/v1/account/keys', { token: account.ownerToken, body: settings });
  if (res.status !== 201) throw new Error(`could not create a key: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; key: string } & Record<string, unknown>;
}

const keyView = async (account: TestAccount, id: string) =>
  (await request('GET', '/api/v1/account/keys', { token: account.ownerToken })).body.find((k: { id: string }) => k.id === id);

const patchKey = (account: TestAccount, id: string, body: unknown) =>
  request('PATCH', `/api/v1/account/keys/${id}`, { token: account.ownerToken, body });

test('settings are set at creation, shown by GET, changed and cleared by PATCH', async (t) => {
  const account = await newAccount(10);
  const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
  const limits = { tools: ['hash-text', 'network'], expiresAt, rateLimit: 5, monthlyCreditLimit: 50, allowedIps: ['127.0.0.1', '::1/128'] };
  const created = await newKey(account, { name: 'ci', ...limits });
  t.like(created, { name: 'ci', ...limits });
  t.like(await keyView(account, created.id), {
    ...limits,
    spentThisMonth: 0,
    lastUsedAt: null,
    lastUsedIp: null,
  });
  const patched = await patchKey(account, created.id, { tools: null, rateLimit: 2, name: 'deploy' });
  t.is(patched.status, 200);
  t.like(patched.body, { id: created.id, name: 'deploy', tools: null, rateLimit: 2, monthlyCreditLimit: 50, expiresAt });
  t.like(await keyView(account, created.id), { name: 'deploy', tools: null, rateLimit: 2 });
  t.false(JSON.stringify(patched.body).includes(created.key), 'the key itself is never shown again');
  // The default key has none.
  t.like(await keyView(account, account.apiKeyId), {
    tools: null,
    expiresAt: null,
    rateLimit: null,
    monthlyCreditLimit: null,
    allowedIps: null,
  });
});

test('bad settings are 400 validation_failed naming each field', async (t) => {
  const account = await newAccount(10);
  const bad = await request('POST', '/api/v1/account/keys', {
    token: account.ownerToken,
    body: {
      tools: ['hash-text', 'no-such-tool'],
      expiresAt: '2020-01-01T00:00:00Z',
      allowedIps: ['10.0.0.0/8', '10.0.0.1/8', 'not-an-ip', '2001:db8::/129'],
      rateLimit: 61,
    },
  });
  t.true(isProblem(bad, 400, 'validation_failed'));
  const fields = bad.body.errors.map((e: { field: string }) => e.field);
  t.true(fields.includes('/tools/1'), JSON.stringify(bad.body.errors));
  // The schema's errors come first; the rules beyond it once the schema holds.
  const rules = await request('POST', '/api/v1/account/keys', {
    token: account.ownerToken,
    body: { expiresAt: '2020-01-01T00:00:00Z', allowedIps: ['10.0.0.0/8', '10.0.0.1/8', 'not-an-ip', '2001:db8::/129'], rateLimit: 61 },
  });
  t.true(isProblem(rules, 400, 'validation_failed'));
  t.deepEqual(rules.body.errors.map((e: { field: string }) => e.field).sort(), [
    '/allowedIps/1',
    '/allowedIps/2',
    '/allowedIps/3',
    '/expiresAt',
    '/rateLimit',
  ]);
  t.true(isProblem(await patchKey(account, account.apiKeyId, { tools: ['nope'] }), 400, 'validation_failed'));
  t.true(isProblem(await patchKey(account, account.apiKeyId, {}), 400, 'validation_failed'));
  t.true(isProblem(await patchKey(account, 'key_nope', { rateLimit: 1 }), 404, 'not_found'));
  t.is((await request('GET', '/api/v1/account/keys', { token: account.ownerToken })).body.length, 1, 'no key was created');
});

test('a key limited to hash-text is refused dns-lookup; a group lets its tools through', async (t) => {
  const account = await newAccount(10);
  const key = await newKey(account, { tools: ['hash-text'] });
  t.is((await callTool(key.key, 'hash-text', { text: 'a' })).status, 200);
  const refused = await callTool(key.key, 'dns-lookup', { hostname: 'example.com', recordType: 'A' });
  t.true(isProblem(refused, 403, 'tool_not_allowed'));
  t.is(refused.body.tool, 'dns-lookup');
  const group = await newKey(account, { tools: ['hashing'] });
  t.is((await callTool(group.key, 'hash-text', { text: 'a' })).status, 200);
  t.true(isProblem(await callTool(group.key, 'dns-lookup', { hostname: 'example.com', recordType: 'A' }), 403, 'tool_not_allowed'));
  // A change is in force for the next call.
  t.is((await patchKey(account, key.id, { tools: ['dns-lookup'] })).status, 200);
  t.true(isProblem(await callTool(key.key, 'hash-text', { text: 'a' }), 403, 'tool_not_allowed'));
  t.is(await balanceAfter(account), 10 - 2, 'refused calls are not charged');
});

async function balanceAfter(account: TestAccount) {
  return (await request('GET', '/api/v1/account', { token: account.ownerToken })).body.balance;
}

test('an expired key is 401 unauthorized with reason expired', async (t) => {
  const account = await newAccount(10);
  const key = await newKey(account, { expiresAt: new Date(Date.now() + 1500).toISOString() });
  const last = await eventually(
    () => callTool(key.key, 'hash-text', { text: 'a' }),
    (r) => r.status !== 200,
    30_000,
    'the key to expire',
  );
  t.true(isProblem(last, 401, 'unauthorized'));
  t.is(last.body.reason, 'expired');
  t.is(last.headers.get('www-authenticate'), 'Bearer');
  // Moving the expiry brings it back.
  t.is((await patchKey(account, key.id, { expiresAt: null })).status, 200);
  t.is((await callTool(key.key, 'hash-text', { text: 'a' })).status, 200);
});

test('a key used from outside its allowedIps is 403 ip_not_allowed, whatever X-Forwarded-For says', async (t) => {
  const account = await newAccount(10);
  const key = await newKey(account, { allowedIps: ['10.0.0.0/8'] });
  const refused = await callTool(key.key, 'hash-text', { text: 'a' });
  t.true(isProblem(refused, 403, 'ip_not_allowed'));
  t.regex(refused.body.ip, /^(::ffff:)?127\.0\.0\.1$|^::1$/);
  // No proxy is configured (TRUSTED_PROXY_HOPS=0): a header the caller chooses changes nothing.
  t.true(isProblem(await callTool(key.key, 'hash-text', { text: 'a' }, { 'x-forwarded-for': '10.1.2.3' }), 403, 'ip_not_allowed'));
  t.true(isProblem(await request('GET', '/api/v1/calls', { token: key.key }), 403, 'ip_not_allowed'), 'every endpoint of the key');
  t.is((await patchKey(account, key.id, { allowedIps: ['127.0.0.0/8', '::1/128'] })).status, 200);
  t.is((await callTool(key.key, 'hash-text', { text: 'a' })).status, 200);
  const shown = await keyView(account, key.id);
  t.regex(shown.lastUsedIp, /^(::ffff:)?127\.0\.0\.1$|^::1$/);
  t.truthy(Date.parse(shown.lastUsedAt));
});

test("a key over its own rate is 429 rate_limited with Retry-After; the account's other keys are not", async (t) => {
  const account = await newAccount(100);
  const key = await newKey(account, { rateLimit: 1 });
  // A burst of twice the rate passes; of 12 calls at once, most are refused.
  const answers = await Promise.all(Array.from({ length: 12 }, () => callTool(key.key, 'hash-text', { text: 'a' })));
  const limited = answers.filter((r) => r.status === 429);
  t.true(limited.length >= 1, `statuses: ${answers.map((r) => r.status).join(',')}`);
  t.true(limited.every((r) => isProblem(r, 429, 'rate_limited') && Number(r.headers.get('retry-after')) >= 1));
  t.regex(limited[0]!.body.detail, /this key's 1 calls per second/);
  t.is(answers.filter((r) => r.status === 200).length, answers.length - limited.length);
  const other = await Promise.all(Array.from({ length: 12 }, () => callTool(account.apiKey, 'hash-text', { text: 'a' })));
  t.true(
    other.every((r) => r.status === 200),
    "the default key has only the account's rate",
  );
});

test('32 concurrent calls never take a key past its monthlyCreditLimit, and a refund gives credits back', async (t) => {
  const account = await newAccount(1000);
  const key = await newKey(account, { monthlyCreditLimit: 10 });
  const answers = await Promise.all(Array.from({ length: 32 }, (_, i) => callTool(key.key, 'hash-text', { text: `c${i}` })));
  t.is(answers.filter((r) => r.status === 200).length, 10);
  const refused = answers.filter((r) => r.status !== 200);
  t.is(refused.length, 22);
  t.true(
    refused.every((r) => isProblem(r, 402, 'key_credit_limit')),
    `statuses: ${refused.map((r) => r.status).join(',')}`,
  );
  t.like(refused[0]!.body, { limit: 10, spent: 10, cost: 1 });
  t.is(await balanceAfter(account), 990);
  t.is((await keyView(account, key.id)).spentThisMonth, 10);
  // An asynchronous call is refused the same way, before any 202.
  t.true(isProblem(await callTool(key.key, 'hash-text', { text: 'x' }, { prefer: 'respond-async' }), 402, 'key_credit_limit'));
  // The account's other key is not limited by it.
  t.is((await callTool(account.apiKey, 'hash-text', { text: 'x' })).status, 200);

  // A call that fails is refunded to the key too: a limit of 10 lets a 10-credit call through
  // again once its failure is refunded.
  const wider = await newKey(account, { monthlyCreditLimit: 10 });
  const url = `http://127.0.0.2:${await closedPort()}/`;
  t.true(isProblem(await callTool(wider.key, 'broken-links', { url }), 502, 'upstream_error'));
  t.is((await keyView(account, wider.id)).spentThisMonth, 0);
  t.true(
    isProblem(await callTool(wider.key, 'broken-links', { url }), 502, 'upstream_error'),
    'not key_credit_limit: the first was given back',
  );
  // Raising the limit is in force at once.
  t.is((await patchKey(account, key.id, { monthlyCreditLimit: 11 })).status, 200);
  t.is((await callTool(key.key, 'hash-text', { text: 'y' })).status, 200);
  t.true(isProblem(await callTool(key.key, 'hash-text', { text: 'z' }), 402, 'key_credit_limit'));
});

test('usage entries name their key, and keyId keeps to one key in JSON and CSV', async (t) => {
  const account = await newAccount(20);
  const key = await newKey(account, { name: 'second' });
  t.is((await callTool(key.key, 'hash-text', { text: 'a' })).status, 200);
  t.is((await callTool(account.apiKey, 'hash-text', { text: 'b' })).status, 200);
  t.is((await callTool(account.apiKey, 'hash-text', { text: 'c' })).status, 200);
  const all = await request('GET', '/api/v1/account/usage', { token: account.ownerToken });
  t.deepEqual(all.body.items.map((u: { keyId: string }) => u.keyId).sort(), [account.apiKeyId, account.apiKeyId, key.id].sort());
  const one = await request('GET', `/api/v1/account/usage?keyId=${key.id}`, { token: account.ownerToken });
  t.is(one.body.items.length, 1);
  t.is(one.body.items[0].keyId, key.id);
  const csv = await request('GET', `/api/v1/account/usage?keyId=${account.apiKeyId}`, {
    token: account.ownerToken,
    headers: { accept: 'text/csv' },
  });
  const lines = (csv.body as string).trim().split('\r\n');
  t.is(lines[0], 'at,requestId,tool,outcome,credits,grantId,keyId');
  t.is(lines.length, 3);
  t.true(lines.slice(1).every((l) => l.endsWith(`,${account.apiKeyId}`)));
  t.true(isProblem(await request('GET', '/api/v1/account/usage?keyId=nope', { token: account.ownerToken }), 400, 'validation_failed'));
  t.is((await keyView(account, key.id)).spentThisMonth, 1);
});
