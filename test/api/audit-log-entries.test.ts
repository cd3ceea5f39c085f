//! The audit log over HTTP, against the running stack: every change to an account (keys, grants,
//! plans, webhook endpoints, link secrets) with its actor, address and user agent, never a secret;
//! newest first, by action, and for the operator.
import test from 'ava';
import { createHash } from 'node:crypto';
import { adminToken, isProblem, newAccount, request, type TestAccount, type UncheckedJson } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { createPlan, log, verify } from './support/audit-log.js';

const UA = { 'user-agent': 'audit-test/1.0' };

test('key changes by the owner are recorded with actor, address, user agent and [before, after], never the key', async (t) => {
  const account = await newAccount(10);
  const ownerPrefix = account.ownerToken.slice(0, 12);
  const created = await request('POST', '/api/v1/account/keys', {
    token: account.ownerToken,
    body: { name: 'ci', tools: ['hash-text'] },
    headers: UA,
  });
  t.is(created.status, 201);
  t.is(
    (
      await request('PATCH', `/api/v1/account/keys/${created.body.id}`, {
        token: account.ownerToken,
        body: { name: 'ci-2', tools: null, rateLimit: 3 },
        headers: UA,
      })
    ).status,
    200,
  );
  t.is((await request('DELETE', `/api/v1/account/keys/${created.body.id}`, { token: account.ownerToken, headers: UA })).status, 200);

  const { items } = await log(account);
  t.deepEqual(
    items.slice(0, 3).map((e) => e.action),
    ['api_key.revoked', 'api_key.updated', 'api_key.created'],
    'newest first',
  );
  const [revoked, updated, made] = items;
  for (const e of [revoked, updated, made]) {
    t.deepEqual(e.actor, { type: 'owner', credential: ownerPrefix });
    t.regex(e.ip, /^(::ffff:)?127\.0\.0\.1$|^::1$/);
    t.is(e.userAgent, 'audit-test/1.0');
    t.deepEqual(e.target, { type: 'api_key', id: created.body.id });
    t.regex(e.hash, /^[0-9a-f]{64}$/);
  }
  t.deepEqual(made.changes, { prefix: [null, created.body.prefix], name: [null, 'ci'], tools: [null, ['hash-text']] });
  t.deepEqual(updated.changes, { name: ['ci', 'ci-2'], tools: [['hash-text'], null], rateLimit: [null, 3] });
  t.deepEqual(Object.keys(revoked.changes), ['revokedAt']);
  const text = JSON.stringify(items);
  t.false(text.includes(created.body.key), 'never the key');
  t.false(text.includes(createHash('sha256').update(created.body.key).digest('hex')), 'nor its digest');
  t.false(text.includes(account.ownerToken), 'nor the owner token');
  // Opening the account: its owner token and default key, by the operator.
  const opened = items.filter((e) => e.action === 'api_key.created' || e.action === 'owner_token.created').slice(-2);
  t.true(opened.every((e) => e.actor.type === 'operator' && e.actor.credential === 'ADMIN_TOKEN'));
});

test('grants and plan changes by the operator are recorded; the operator lists every account by account and action', async (t) => {
  const account = await newAccount(10);
  const grant = await request('POST', `/api/v1/admin/accounts/${account.id}/credits`, {
    token: adminToken(),
    body: { amount: 7, reason: 'purchase' },
    headers: UA,
  });
  t.is(grant.status, 200);
  const plan = await createPlan({ name: 'Audit', monthlyAllowance: 0, rollover: 'keep' });
  t.is(plan.status, 201);
  const planId = plan.id;
  t.is((await request('PUT', `/api/v1/admin/accounts/${account.id}/plan`, { token: adminToken(), body: { plan: planId } })).status, 200);

  const granted = (await log(account, '?action=credits.granted')).items;
  t.is(granted.length, 2, 'the purchase, and the welcome grant the account was opened with');
  t.like(granted[0], {
    actor: { type: 'operator', credential: 'ADMIN_TOKEN' },
    userAgent: 'audit-test/1.0',
    target: { type: 'grant', id: grant.body.grant.id },
  });
  t.deepEqual(granted[0].changes, { amount: [null, 7], reason: [null, 'purchase'], expiresAt: [null, null] });
  t.like(granted[1], {
    actor: { type: 'operator', credential: 'ADMIN_TOKEN' },
    changes: { amount: [null, 10], reason: [null, 'welcome'] },
  });
  const planChanged = (await log(account, '?action=account.plan_changed')).items;
  t.deepEqual(
    planChanged.map((e) => e.changes),
    [{ plan: ['free', planId] }],
  );
  t.is((await request('PUT', `/api/v1/admin/accounts/${account.id}/plan`, { token: adminToken(), body: { plan: planId } })).status, 200);
  t.is((await log(account, '?action=account.plan_changed')).items.length, 1, 'moving to the plan it is on records nothing');
  const grantOnce = () =>
    request('POST', `/api/v1/admin/accounts/${account.id}/credits`, {
      token: adminToken(),
      body: { amount: 3, reason: 'purchase', idempotencyKey: `pi_${account.id}` },
    });
  t.is((await grantOnce()).status, 200);
  t.is((await grantOnce()).headers.get('idempotent-replayed'), 'true');
  t.is((await log(account, '?action=credits.granted')).items.length, 3, 'a repeated grant is recorded once');
  const drafts = await withServiceDb((db) =>
    db.collection('accounts').findOne({ _id: account.id as never }, { projection: { auditDrafts: 1 } }),
  );
  t.deepEqual(drafts?.auditDrafts, [], 'written with the change, then taken off the account once in the chain');

  const admin = await request('GET', `/api/v1/admin/audit-log?accountId=${account.id}&action=account.plan_changed`, {
    token: adminToken(),
  });
  t.is(admin.status, 200);
  t.deepEqual(
    admin.body.items.map((e: UncheckedJson) => [e.accountId, e.id]),
    [[account.id, planChanged[0].id]],
  );
  t.true(isProblem(await request('GET', '/api/v1/admin/audit-log', { token: account.ownerToken }), 401, 'unauthorized'));
  t.true(isProblem(await request('GET', '/api/v1/admin/audit-log?accountId=nope', { token: adminToken() }), 400, 'validation_failed'));
  t.true(isProblem(await request('GET', '/api/v1/account/audit-log?action=nope', { token: account.ownerToken }), 400, 'validation_failed'));
  t.true(isProblem(await request('GET', '/api/v1/account/audit-log', { token: account.apiKey }), 403, 'forbidden'));
});

test("the allowance the service grants itself is recorded as the service's", async (t) => {
  const plan = await createPlan({ name: 'Allowance', monthlyAllowance: 40, rollover: 'none' });
  t.is(plan.status, 201);
  const opened = await request('POST', '/api/v1/admin/accounts', { token: adminToken(), body: { credits: 0, plan: plan.id }, headers: UA });
  t.is(opened.status, 201);
  const owner = { ownerToken: opened.body.ownerToken } as TestAccount;
  const grants = (await request('GET', '/api/v1/account/grants', { token: owner.ownerToken })).body.items;
  const { items } = await log(owner, '?action=credits.granted');
  t.is(items.length, 1, "the first period's allowance; no welcome grant of 0");
  t.like(items[0], {
    actor: { type: 'service', credential: null },
    ip: null,
    userAgent: null,
    target: { type: 'grant', id: grants[0].id },
  });
  t.deepEqual(items[0].changes, { amount: [null, 40], reason: [null, 'monthly_allowance'], expiresAt: [null, grants[0].expiresAt] });
  t.true((await verify(owner)).ok);
});

test('webhook endpoint changes are recorded, never the signing secret', async (t) => {
  const account = await newAccount(10);
  const hooks = '/api/v1/account/webhooks';
  const created = await request('POST', hooks, {
    token: account.ownerToken,
    body: { url: 'http://localhost:9/audit', eventTypes: ['credits.low'] },
    headers: UA,
  });
  t.is(created.status, 201);
  const id = created.body.id;
  t.is(
    (await request('PATCH', `${hooks}/${id}`, { token: account.ownerToken, body: { eventTypes: ['credits.low', 'credits.granted'] } }))
      .status,
    200,
  );
  const rotated = await request('POST', `${hooks}/${id}/rotate-secret`, { token: account.ownerToken, body: {} });
  t.is(rotated.status, 200);
  t.is((await request('DELETE', `${hooks}/${id}/previous-secret`, { token: account.ownerToken })).status, 200);
  t.is((await request('POST', `${hooks}/${id}/enable`, { token: account.ownerToken, body: {} })).status, 200);
  t.is((await request('DELETE', `${hooks}/${id}`, { token: account.ownerToken })).status, 204);

  const entries = (await log(account)).items.filter((e) => e.target.type === 'webhook_endpoint');
  t.deepEqual(
    entries.map((e) => e.action),
    [
      'webhook_endpoint.deleted',
      'webhook_endpoint.enabled',
      'webhook_endpoint.previous_secret_ended',
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.updated',
      'webhook_endpoint.created',
    ],
  );
  t.true(entries.every((e) => e.target.id === id && e.actor.type === 'owner'));
  const byAction = Object.fromEntries(entries.map((e) => [e.action, e.changes]));
  t.deepEqual(byAction['webhook_endpoint.created'], { url: [null, 'http://localhost:9/audit'], eventTypes: [null, ['credits.low']] });
  t.deepEqual(byAction['webhook_endpoint.updated'], { eventTypes: [['credits.low'], ['credits.low', 'credits.granted']] });
  t.deepEqual(byAction['webhook_endpoint.deleted'], { url: ['http://localhost:9/audit', null], status: ['active', null] });
  const text = JSON.stringify(entries);
  t.false(text.includes(created.body.secret) || text.includes(rotated.body.secret), 'never a signing secret');
  t.false(text.includes('whsec_'));
  t.true((await verify(account)).ok);
});

test('link secrets created and retired are recorded, once each, never the secret', async (t) => {
  const account = await newAccount(10);
  const created = await request('POST', '/api/v1/account/link-secrets', { token: account.ownerToken, headers: UA });
  t.is(created.status, 201);
  const id = created.body.id;
  t.is((await request('DELETE', `/api/v1/account/link-secrets/${id}`, { token: account.ownerToken, headers: UA })).status, 200);
  t.is(
    (await request('DELETE', `/api/v1/account/link-secrets/${id}`, { token: account.ownerToken, headers: UA })).status,
    200,
    'retiring again answers the same',
  );

  const { items } = await log(account);
  const entries = items.filter((e) => e.target.type === 'link_secret');
  t.deepEqual(
    entries.map((e) => e.action),
    ['link_secret.retired', 'link_secret.created'],
    'the second retirement records nothing',
  );
  t.true(entries.every((e) => e.target.id === id && e.actor.type === 'owner' && e.userAgent === 'audit-test/1.0'));
  t.deepEqual(entries[1].changes, {});
  t.deepEqual(Object.keys(entries[0].changes), ['retiredAt']);
  t.is(entries[0].changes.retiredAt[0], null);
  t.false(JSON.stringify(items).includes(created.body.secret), 'never the secret');
  t.false(JSON.stringify(items).includes('lksec_'));
  t.true((await verify(account)).ok);
  const stored = await withServiceDb((db) => db.collection('link_secrets').findOne({ _id: id as never }));
  t.deepEqual(stored?.auditDrafts, [], 'no draft left on the secret');
});
