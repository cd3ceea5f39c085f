//! The audit log over HTTP, against the running stack: every change to an account with its actor,
//! address and user agent, never a secret; newest first, by action, as CSV, and for the operator;
//! a hash chain that a customer can recompute from an export, whose verify names an entry edited
//! or removed in the database; a draft left by a process that died after its change is not lost.
import test from 'ava';
import { createHash } from 'node:crypto';
import { adminToken, isProblem, newAccount, request, type TestAccount, type UncheckedJson } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { canonicalJson } from '../../lib/canonical-json.js';

const UA = { 'user-agent': 'audit-test/1.0' };

const log = async (account: TestAccount, query = '') => {
  const res = await request('GET', `/api/v1/account/audit-log${query}`, { token: account.ownerToken });
  if (res.status !== 200) throw new Error(`audit log: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { items: UncheckedJson[]; nextCursor: string | null };
};
const verify = async (account: TestAccount) =>
  (await request('GET', '/api/v1/account/audit-log/verify', { token: account.ownerToken })).body;

/** What the docs tell a customer to do with an export: recompute every hash, oldest first. */
function verifyOffline(newestFirst: UncheckedJson[]): string | null {
  let prev: string | undefined;
  for (const entry of [...newestFirst].reverse()) {
    const { prevHash, hash, ...content } = entry;
    if (prev !== undefined && prevHash !== prev) return entry.id;
    if (
      createHash('sha256')
        .update(prevHash + canonicalJson(content))
        .digest('hex') !== hash
    )
      return entry.id;
    prev = hash;
  }
  return null;
}

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
  const planId = `audit-${Date.now().toString(36)}`;
  t.is(
    (
      await request('POST', '/api/v1/admin/plans', {
        token: adminToken(),
        body: { id: planId, name: 'Audit', monthlyAllowance: 0, rollover: 'keep' },
      })
    ).status,
    201,
  );
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
  const plan = (await log(account, '?action=account.plan_changed')).items;
  t.deepEqual(
    plan.map((e) => e.changes),
    [{ plan: ['free', planId] }],
  );
  t.is((await request('PUT', `/api/v1/admin/accounts/${account.id}/plan`, { token: adminToken(), body: { plan: planId } })).status, 200);
  t.is((await log(account, '?action=account.plan_changed')).items.length, 1, 'moving to the plan it is on records nothing');
  t.is(
    (
      await request('POST', `/api/v1/admin/accounts/${account.id}/credits`, {
        token: adminToken(),
        body: { amount: 3, reason: 'purchase', idempotencyKey: `pi_${account.id}` },
      })
    ).status,
    200,
  );
  t.is(
    (
      await request('POST', `/api/v1/admin/accounts/${account.id}/credits`, {
        token: adminToken(),
        body: { amount: 3, reason: 'purchase', idempotencyKey: `pi_${account.id}` },
      })
    ).headers.get('idempotent-replayed'),
    'true',
  );
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
    [[account.id, plan[0].id]],
  );
  t.true(isProblem(await request('GET', '/api/v1/admin/audit-log', { token: account.ownerToken }), 401, 'unauthorized'));
  t.true(isProblem(await request('GET', '/api/v1/admin/audit-log?accountId=nope', { token: adminToken() }), 400, 'validation_failed'));
  t.true(isProblem(await request('GET', '/api/v1/account/audit-log?action=nope', { token: account.ownerToken }), 400, 'validation_failed'));
  t.true(isProblem(await request('GET', '/api/v1/account/audit-log', { token: account.apiKey }), 403, 'forbidden'));
});

test('the chain verifies, offline from an export too, and an entry edited or removed in the database is named', async (t) => {
  const account = await newAccount(10);
  for (let i = 0; i < 3; i++)
    t.is((await request('POST', '/api/v1/account/keys', { token: account.ownerToken, body: { name: `k${i}` } })).status, 201);
  const { items } = await log(account, '?limit=200');
  t.true(items.length >= 5);
  t.deepEqual(await verify(account), { ok: true, entries: items.length });
  t.is(verifyOffline(items), null, 'the export recomputes');
  t.is(items.at(-1).prevHash, '', 'the first entry follows the empty hash');

  // Paged: the pages put together are the whole log.
  const first = await log(account, '?limit=2');
  const second = await log(account, `?limit=200&cursor=${first.nextCursor}`);
  t.deepEqual(
    [...first.items, ...second.items].map((e) => e.id),
    items.map((e) => e.id),
  );

  // CSV, oldest first, with the hashes.
  const csv = await request('GET', '/api/v1/account/audit-log', { token: account.ownerToken, headers: { accept: 'text/csv' } });
  t.regex(csv.headers.get('content-type') ?? '', /^text\/csv/);
  const lines = (csv.body as string).trim().split('\r\n');
  t.is(lines[0], 'id,at,actorType,actorCredential,actorUserId,ip,userAgent,action,targetType,targetId,changes,prevHash,hash');
  t.is(lines.length, items.length + 1);
  t.true(lines[1]!.startsWith(`${items.at(-1).id},`) && lines[1]!.endsWith(`,${items.at(-1).hash}`));

  const edited = items[2];
  await withServiceDb((db) =>
    db.collection('audit_log').updateOne({ _id: edited.id }, { $set: { 'changes.name': [null, 'someone-else'] } }),
  );
  t.deepEqual(await verify(account), { ok: false, entries: items.length, firstBadEntry: edited.id });
  const tampered = (await log(account, '?limit=200')).items;
  t.is(verifyOffline(tampered), edited.id, 'offline as well');

  // Put back, then remove one in the middle: the entry after it no longer links.
  await withServiceDb((db) => db.collection('audit_log').updateOne({ _id: edited.id }, { $set: { changes: edited.changes } }));
  t.true((await verify(account)).ok);
  await withServiceDb((db) => db.collection('audit_log').deleteOne({ _id: items[3].id }));
  t.deepEqual(await verify(account), { ok: false, entries: items.length - 1, firstBadEntry: items[2].id });
});

test('a change whose process died before its entry reached the chain is recorded all the same', async (t) => {
  const account = await newAccount(10);
  const before = (await log(account)).items.length;
  // What updateKey writes in one update, and a process that died right after it leaves behind:
  // the change and its draft on the key, not yet in the chain.
  const draft = {
    id: 'aud_leftover' + Date.now().toString(36),
    accountId: account.id,
    at: new Date(),
    actor: { type: 'owner', credential: account.ownerToken.slice(0, 12) },
    ip: '203.0.113.9',
    userAgent: 'crashed/1',
    action: 'api_key.updated',
    target: { type: 'api_key', id: account.apiKeyId },
    changes: { name: ['default', 'renamed'] },
  };
  await withServiceDb((db) =>
    db
      .collection('credentials')
      .updateOne({ _id: account.apiKeyId as never }, { $set: { name: 'renamed' }, $push: { auditDrafts: draft } } as never),
  );
  const { items } = await log(account);
  t.is(items.length, before + 1);
  t.like(items[0], { id: draft.id, action: 'api_key.updated', ip: '203.0.113.9', changes: { name: ['default', 'renamed'] } });
  t.true((await verify(account)).ok);
  const left = await withServiceDb((db) => db.collection('credentials').findOne({ _id: account.apiKeyId as never }));
  t.deepEqual(left?.auditDrafts, [], 'taken off the key once in the chain');
  t.is((await log(account)).items.length, before + 1, 'appended once');
});

test('a grant or plan change whose process died before its entry reached the chain is recorded all the same', async (t) => {
  const account = await newAccount(10);
  const planId = `audit-${Date.now().toString(36)}`;
  t.is(
    (
      await request('POST', '/api/v1/admin/plans', {
        token: adminToken(),
        body: { id: planId, name: 'Crash', monthlyAllowance: 0, rollover: 'keep' },
      })
    ).status,
    201,
  );
  const before = (await verify(account)).entries;
  const draft = (tag: string, action: string, target: { type: string; id: string }, changes: Record<string, unknown>) => ({
    id: `aud_${tag}${Date.now().toString(36)}`,
    accountId: account.id,
    at: new Date(),
    actor: { type: 'operator', credential: 'ADMIN_TOKEN' },
    ip: '203.0.113.9',
    userAgent: 'crashed/1',
    action,
    target,
    changes,
  });
  // What applyGrant and changePlan each write in one update of the account, and a process that died
  // right after them leaves behind: the change and its draft, not yet in the chain.
  const grantId = `grt_crash${Date.now().toString(36)}`;
  const granted = draft(
    'grant',
    'credits.granted',
    { type: 'grant', id: grantId },
    { amount: [null, 5], reason: [null, 'purchase'], expiresAt: [null, null] },
  );
  const moved = draft('plan', 'account.plan_changed', { type: 'account', id: account.id }, { plan: ['free', planId] });
  await withServiceDb(async (db) => {
    const accounts = db.collection('accounts');
    await accounts.updateOne({ _id: account.id as never }, {
      $inc: { balance: 5, chargedBalance: 5, lotsVersion: 1 },
      $set: { [`lots.${grantId}`]: { remaining: 5, expiresAt: null } },
      $push: { auditDrafts: granted },
    } as never);
    await accounts.updateOne({ _id: account.id as never }, {
      $set: { 'plan.id': planId },
      $inc: { 'plan.changes': 1 },
      $push: { auditDrafts: moved },
    } as never);
  });
  t.deepEqual(await verify(account), { ok: true, entries: before + 2 }, 'verify appends them first');
  const { items } = await log(account);
  t.deepEqual(
    items.slice(0, 2).map((e) => [e.id, e.action, e.ip, e.userAgent]),
    [
      [moved.id, 'account.plan_changed', '203.0.113.9', 'crashed/1'],
      [granted.id, 'credits.granted', '203.0.113.9', 'crashed/1'],
    ],
  );
  const left = await withServiceDb((db) => db.collection('accounts').findOne({ _id: account.id as never }));
  t.deepEqual(left?.auditDrafts, [], 'taken off the account once in the chain');
  t.is((await verify(account)).entries, before + 2, 'appended once');
});

test("the allowance the service grants itself is recorded as the service's", async (t) => {
  const planId = `audit-${Date.now().toString(36)}`;
  t.is(
    (
      await request('POST', '/api/v1/admin/plans', {
        token: adminToken(),
        body: { id: planId, name: 'Allowance', monthlyAllowance: 40, rollover: 'none' },
      })
    ).status,
    201,
  );
  const opened = await request('POST', '/api/v1/admin/accounts', { token: adminToken(), body: { credits: 0, plan: planId }, headers: UA });
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

test('a deletion whose process died is recorded once its target is gone, and dropped when it never happened', async (t) => {
  const account = await newAccount(10);
  const kept = await request('POST', '/api/v1/account/webhooks', { token: account.ownerToken, body: { url: 'http://localhost:9/kept' } });
  const before = (await log(account)).items.length;
  const draft = (target: string, tag: string) => ({
    id: `aud_${tag}${Date.now().toString(36)}`,
    accountId: account.id,
    at: new Date(Date.now() - 5 * 60_000),
    actor: { type: 'owner', credential: account.ownerToken.slice(0, 12) },
    ip: '203.0.113.9',
    userAgent: null,
    action: 'webhook_endpoint.deleted',
    target: { type: 'webhook_endpoint', id: target },
    changes: { url: ['http://localhost:9/x', null] },
  });
  // Written before the deletion; the process died after deleting (gone) or before (kept).
  const gone = draft('whe_gone' + Date.now().toString(36), 'gone');
  const never = draft(kept.body.id, 'never');
  await withServiceDb((db) =>
    db.collection('accounts').updateOne({ _id: account.id as never }, { $push: { auditDeletions: { $each: [gone, never] } } } as never),
  );
  const { items } = await log(account);
  t.is(items.length, before + 1);
  t.like(
    items[0],
    { id: gone.id, action: 'webhook_endpoint.deleted', target: { id: gone.target.id } },
    'appended last in the chain, with its own time',
  );
  t.false(
    items.some((e) => e.id === never.id),
    'the endpoint is still there: no deletion to record',
  );
  const left = await withServiceDb((db) => db.collection('accounts').findOne({ _id: account.id as never }));
  t.deepEqual(left?.auditDeletions, []);
  t.true((await verify(account)).ok);
});

test('concurrent changes each take their own place in the chain, which still verifies', async (t) => {
  const account = await newAccount(10);
  const before = (await log(account, '?limit=200')).items.length;
  const made = await Promise.all(
    Array.from({ length: 12 }, (_, i) => request('POST', '/api/v1/account/keys', { token: account.ownerToken, body: { name: `c${i}` } })),
  );
  t.true(made.every((r) => r.status === 201));
  const { items } = await log(account, '?limit=200');
  t.is(items.length, before + 12);
  t.is(new Set(items.map((e) => e.prevHash)).size, items.length, 'no two entries follow the same one');
  t.deepEqual(await verify(account), { ok: true, entries: items.length });
  t.is(verifyOffline(items), null, "the list is in the chain's order: the export verifies as it is");
});
