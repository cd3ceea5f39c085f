//! Credit packs and checkout against stripe-mock: the operator's packs, the account's list, a
//! Checkout Session with the pending purchase that records its promise, and the account's Stripe
//! customer made once, also when checkouts race.
import test from 'ava';
import { adminToken, isProblem, newAccount, request } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { checkout, putPack, stripeId } from '../helpers/stripe.js';

const tag = stripeId('x').slice(-6).toLowerCase();
const STARTER = `starter-${tag}`;
const WITHDRAWN = `withdrawn-${tag}`;

test.before(async () => {
  await putPack(STARTER, { name: 'Starter', credits: 1000, amount: 1500, expiresInDays: 365 });
  await putPack(WITHDRAWN, { credits: 50, amount: 100, active: false });
});

test('the operator puts credit packs; accounts see only those for sale', async (t) => {
  const id = `pro-${tag}`;
  const put = await request('PUT', `/api/v1/admin/credit-packs/${id}`, {
    token: adminToken(),
    body: { name: 'Pro', credits: 5000, price: { amount: 6000, currency: 'eur' } },
  });
  t.is(put.status, 200);
  t.like(put.body, { id, name: 'Pro', credits: 5000, price: { amount: 6000, currency: 'eur' }, expiresInDays: null, active: true });
  const operatorList = await request('GET', '/api/v1/admin/credit-packs', { token: adminToken() });
  t.is(operatorList.status, 200);
  t.true([id, STARTER, WITHDRAWN].every((p) => operatorList.body.some((pack: { id: string }) => pack.id === p)));
  const account = await newAccount(0);
  const listed = await request('GET', '/api/v1/account/credit-packs', { token: account.ownerToken });
  t.is(listed.status, 200);
  const ids = listed.body.map((p: { id: string }) => p.id);
  t.true(ids.includes(id) && ids.includes(STARTER));
  t.false(ids.includes(WITHDRAWN), 'a withdrawn pack is not listed to accounts');
  t.true(isProblem(await request('GET', '/api/v1/account/credit-packs'), 401, 'unauthorized'));
});

test('a pack out of bounds is 400 naming each field; the operator API needs its token', async (t) => {
  const bad = await request('PUT', `/api/v1/admin/credit-packs/bad-${tag}`, {
    token: adminToken(),
    body: { name: '', credits: 0, price: { amount: 10, currency: 'USD' }, expiresInDays: 0 },
  });
  t.true(isProblem(bad, 400, 'validation_failed'));
  t.deepEqual(bad.body.errors.map((e: { field: string }) => e.field).sort(), ['/credits', '/expiresInDays', '/name', '/price/currency']);
  const badId = await request('PUT', '/api/v1/admin/credit-packs/Not%20A%20Pack', {
    token: adminToken(),
    body: { name: 'x', credits: 1, price: { amount: 1, currency: 'usd' } },
  });
  t.true(isProblem(badId, 400, 'validation_failed'));
  t.is(badId.body.errors[0].field, 'path:id');
  const account = await newAccount(0);
  t.true(
    isProblem(await request('PUT', `/api/v1/admin/credit-packs/x-${tag}`, { token: account.ownerToken, body: {} }), 401, 'unauthorized'),
  );
});

test('checkout opens a Checkout Session and records the pending purchase with what was promised then', async (t) => {
  const account = await newAccount(0);
  const pack = `promise-${tag}`;
  await putPack(pack, { credits: 300, amount: 900, expiresInDays: 30 });
  const res = await request('POST', '/api/v1/account/checkout', { token: account.ownerToken, body: { packId: pack } });
  t.is(res.status, 201);
  t.regex(res.body.sessionId, /^cs_test_/);
  t.regex(res.body.url, /^https:\/\/checkout\.stripe\.com\//);
  t.regex(res.body.purchaseId, /^pur_[0-9A-Za-z]{22}$/);
  // The operator changes the pack afterwards: the purchase keeps its terms.
  await putPack(pack, { credits: 999, amount: 100, expiresInDays: null });
  const list = await request('GET', '/api/v1/account/purchases', { token: account.ownerToken });
  t.is(list.status, 200);
  t.is(list.body.items.length, 1);
  t.like(list.body.items[0], {
    id: res.body.purchaseId,
    packId: pack,
    credits: 300,
    amount: 900,
    currency: 'usd',
    expiresInDays: 30,
    status: 'pending',
    creditsVoided: 0,
    paidAt: null,
    receiptUrl: null,
  });
  t.is(list.body.nextCursor, null);
  // Recorded in the audit log, by the owner.
  const audit = await request('GET', '/api/v1/account/audit-log?action=purchase.created', { token: account.ownerToken });
  t.is(audit.body.items.length, 1);
  t.like(audit.body.items[0], { actor: { type: 'owner' }, target: { type: 'purchase', id: res.body.purchaseId } });
  t.deepEqual(audit.body.items[0].changes.credits, [null, 300]);
});

test('checkout of a pack not for sale is 404; a bad body is 400', async (t) => {
  const account = await newAccount(0);
  t.true(
    isProblem(
      await request('POST', '/api/v1/account/checkout', { token: account.ownerToken, body: { packId: `nope-${tag}` } }),
      404,
      'not_found',
    ),
  );
  t.true(
    isProblem(
      await request('POST', '/api/v1/account/checkout', { token: account.ownerToken, body: { packId: WITHDRAWN } }),
      404,
      'not_found',
    ),
  );
  const bad = await request('POST', '/api/v1/account/checkout', {
    token: account.ownerToken,
    body: { packId: STARTER, saveCard: 'yes', extra: 1 },
  });
  t.true(isProblem(bad, 400, 'validation_failed'));
  t.deepEqual(bad.body.errors.map((e: { field: string }) => e.field).sort(), ['/extra', '/saveCard']);
  t.is((await request('GET', '/api/v1/account/purchases', { token: account.ownerToken })).body.items.length, 0);
});

test("the account's Stripe customer is made once and reused, also by checkouts at once", async (t) => {
  const account = await newAccount(0);
  const first = await Promise.all(Array.from({ length: 6 }, () => checkout(account.ownerToken, STARTER)));
  const later = await checkout(account.ownerToken, STARTER, true);
  const { customer, used } = await withServiceDb(async (db) => ({
    customer: (await db.collection('billing_accounts').findOne({ _id: account.id as never }))?.stripeCustomerId as string | undefined,
    used: (await db.collection('purchases').find({ accountId: account.id }).toArray()).map((p) => p.customerId as string),
  }));
  t.regex(customer ?? '', /^cus_/);
  t.is(used.length, first.length + 1);
  // stripe-mock answers every create with a new id: one id everywhere means one was made and kept.
  t.deepEqual(new Set(used), new Set([customer]));
  t.is(new Set([...first, later].map((c) => c.sessionId)).size, 7, 'a session per checkout');
});
