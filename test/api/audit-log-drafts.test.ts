//! The audit log's drafts: a change written with its draft by a process that died before the entry
//! reached the chain (a key, a grant, a plan, a deletion) is recorded all the same, once; a
//! deletion that never happened is dropped.
import test from 'ava';
import { newAccount, request } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { auditDraft, createPlan, log, verify } from './support/audit-log.js';

test('a change whose process died before its entry reached the chain is recorded all the same', async (t) => {
  const account = await newAccount(10);
  const before = (await log(account)).items.length;
  // What updateKey writes in one update, and a process that died right after it leaves behind:
  // the change and its draft on the key, not yet in the chain.
  const draft = auditDraft(account, 'leftover', {
    action: 'api_key.updated',
    target: { type: 'api_key', id: account.apiKeyId },
    changes: { name: ['default', 'renamed'] },
  });
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
  const plan = await createPlan({ name: 'Crash', monthlyAllowance: 0, rollover: 'keep' });
  t.is(plan.status, 201);
  const planId = plan.id;
  const before = (await verify(account)).entries;
  const operator = { type: 'operator', credential: 'ADMIN_TOKEN' };
  // What applyGrant and changePlan each write in one update of the account, and a process that died
  // right after them leaves behind: the change and its draft, not yet in the chain.
  const grantId = `grt_crash${Date.now().toString(36)}`;
  const granted = auditDraft(account, 'grant', {
    action: 'credits.granted',
    target: { type: 'grant', id: grantId },
    changes: { amount: [null, 5], reason: [null, 'purchase'], expiresAt: [null, null] },
    actor: operator,
  });
  const moved = auditDraft(account, 'plan', {
    action: 'account.plan_changed',
    target: { type: 'account', id: account.id },
    changes: { plan: ['free', planId] },
    actor: operator,
  });
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

test('a deletion whose process died is recorded once its target is gone, and dropped when it never happened', async (t) => {
  const account = await newAccount(10);
  const kept = await request('POST', '/api/v1/account/webhooks', { token: account.ownerToken, body: { url: 'http://localhost:9/kept' } });
  const before = (await log(account)).items.length;
  const draft = (target: string, tag: string) =>
    auditDraft(account, tag, {
      at: new Date(Date.now() - 5 * 60_000),
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
