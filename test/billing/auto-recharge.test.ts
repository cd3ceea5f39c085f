//! Auto-recharge against stripe-mock: settings checked at the edge, a card saved at checkout, one
//! recharge (and no more than the month's limit) however many calls cross the threshold at once,
//! its credits granted on Stripe's signed `payment_intent.succeeded` once, and failures told to the
//! account's webhooks until the third in a row turns it off.
import test from 'ava';
import { Client, type Connection } from '@temporalio/client';
import { adminToken, callTool, isProblem, newAccount, request, type TestAccount, type UncheckedJson } from '../helpers/api.js';
import { mailsTo, uniqueAddress, waitForMail } from '../helpers/mailbox.js';
import { testEnv } from '../helpers/env.js';
import { withServiceDb } from '../helpers/db.js';
import { applied, checkout, deliver, eventually, paymentIntent, putPack, session, stripeEvent, stripeId } from '../helpers/stripe.js';
import { stackLogLine } from '../helpers/stack-logs.js';
import { connectTemporal } from '../helpers/temporal.js';

const tag = stripeId('x').slice(-6).toLowerCase();
const PACK = `recharge-${tag}`;
const CREDITS = 40;

let connection: Connection;
let temporal: Client;

test.before(async () => {
  await putPack(PACK, { credits: CREDITS, amount: 2000 });
  connection = await connectTemporal();
  temporal = new Client({ connection, namespace: testEnv.temporalNamespace() });
});

test.after.always(async () => {
  await connection?.close();
});

const settings = async (a: TestAccount) =>
  (await request('GET', '/api/v1/account/auto-recharge', { token: a.ownerToken })).body as Record<string, UncheckedJson>;
const putSettings = (a: TestAccount, body: Record<string, unknown>) =>
  request('PUT', '/api/v1/account/auto-recharge', { token: a.ownerToken, body });
const balance = async (a: TestAccount) => (await request('GET', '/api/v1/account', { token: a.ownerToken })).body.balance as number;
const hash = (a: TestAccount, i: number) => callTool(a.apiKey, 'hash-text', { text: `recharge ${i}`, algorithm: 'sha256' });
const rechargesOf = (accountId: string) => withServiceDb((db) => db.collection('recharges').find({ accountId }).toArray());
const eventsOf = (accountId: string, kind: string) =>
  withServiceDb(async (db) =>
    (await db.collection('events').find({ accountId, event: kind }).sort({ createdAt: 1 }).toArray()).map(
      (e) => e.data as Record<string, UncheckedJson>,
    ),
  );

/** An account (with `email` as its contact) that bought PACK with saveCard, paid: CREDITS in its balance and visa 4242 saved. */
async function withSavedCard(email?: string): Promise<TestAccount> {
  const opened = await request('POST', '/api/v1/admin/accounts', {
    token: adminToken(),
    body: { name: 'recharging', credits: 0, ...(email ? { email } : {}) },
  });
  const account: TestAccount = {
    id: opened.body.account.id,
    apiKey: opened.body.apiKey.key,
    apiKeyId: opened.body.apiKey.id,
    ownerToken: opened.body.ownerToken,
  };
  const { sessionId } = await checkout(account.ownerToken, PACK, true);
  const completed = stripeEvent(
    'checkout.session.completed',
    session({ id: sessionId, accountId: account.id, paymentIntentId: stripeId('pi') }),
  );
  if ((await deliver(completed)).status !== 200) throw new Error('completion refused');
  await applied(temporal, completed.id);
  return account;
}

/** The recharge started after `previous` (by id), once it has its payment intent. */
const nextRecharge = (account: TestAccount, previous: string | null) =>
  eventually(async () => {
    const last = (await settings(account)).lastRecharge;
    return last && last.id !== previous && last.paymentIntentId
      ? (last as { id: string; paymentIntentId: string; status: string })
      : undefined;
  }, 'a recharge with its payment intent');

test('settings out of bounds are 400 naming each field; turning it on needs a saved card', async (t) => {
  const account = await newAccount(0);
  t.like(await settings(account), {
    enabled: false,
    paymentMethod: null,
    rechargesThisMonth: 0,
    consecutiveFailures: 0,
    lastRecharge: null,
  });
  const bounds = await putSettings(account, { enabled: true, packId: PACK, threshold: 0, monthlyLimit: 101 });
  t.true(isProblem(bounds, 400, 'validation_failed'));
  t.deepEqual(bounds.body.errors.map((e: { field: string }) => e.field).sort(), ['/monthlyLimit', '/threshold']);
  const missing = await putSettings(account, { enabled: 'yes' });
  t.deepEqual(missing.body.errors.map((e: { field: string }) => e.field).sort(), ['/enabled', '/monthlyLimit', '/packId', '/threshold']);
  const noPack = await putSettings(account, { enabled: false, packId: `nope-${tag}`, threshold: 10, monthlyLimit: 1 });
  t.true(isProblem(noPack, 400, 'validation_failed'));
  t.deepEqual(
    noPack.body.errors.map((e: { field: string }) => e.field),
    ['/packId'],
  );
  const noCard = await putSettings(account, { enabled: true, packId: PACK, threshold: 10, monthlyLimit: 1 });
  t.true(isProblem(noCard, 400, 'validation_failed'));
  t.deepEqual(
    noCard.body.errors.map((e: { field: string }) => e.field),
    ['/enabled'],
  );
  t.false((await settings(account)).enabled);
});

const DISAGREE = "Stripe event's payment intent and metadata disagree: acknowledged, nothing granted";

/** An account with auto-recharge on below `threshold` and one recharge started, waiting for its event. */
async function pendingRecharge(threshold: number, email?: string) {
  const account = await withSavedCard(email);
  if ((await putSettings(account, { enabled: true, packId: PACK, threshold, monthlyLimit: 10 })).status !== 200)
    throw new Error('settings refused');
  if ((await hash(account, 0)).status !== 200) throw new Error('the call was refused');
  return { account, recharge: await nextRecharge(account, null) };
}

test("a payment intent's event that disagrees with the recharge it names grants nothing and is logged", async (t) => {
  const { account, recharge } = await pendingRecharge(1000);
  const before = await balance(account);
  // The recharge's own intent, its metadata naming another recharge; another account.
  const otherRecharge = stripeEvent(
    'payment_intent.succeeded',
    paymentIntent({ id: recharge.paymentIntentId, accountId: account.id, rechargeId: stripeId('rch') }),
  );
  const otherAccount = stripeEvent(
    'payment_intent.succeeded',
    paymentIntent({ id: recharge.paymentIntentId, accountId: (await newAccount(0)).id }),
  );
  // Another intent, its metadata naming this recharge (which Stripe's answer told the intent of).
  const otherIntent = stripeEvent(
    'payment_intent.succeeded',
    paymentIntent({ id: stripeId('pi'), accountId: account.id, rechargeId: recharge.id }),
  );
  for (const event of [otherRecharge, otherAccount, otherIntent]) {
    t.is((await deliver(event)).status, 200, 'acknowledged: Stripe would only send it again');
    t.like(await applied(temporal, event.id), { outcome: 'mismatch' });
    const line = await stackLogLine(event.id, DISAGREE);
    t.like(line, { paymentIntentId: event.data.object.id });
  }
  t.is(await balance(account), before);
  t.like((await settings(account)).lastRecharge, { id: recharge.id, status: 'pending' });
  t.deepEqual(
    (await eventsOf(account.id, 'credits.granted')).map((g) => g.reason),
    ['purchase'],
  );
  t.deepEqual(await eventsOf(account.id, 'credits.recharge_failed'), []);
});

test('a payment_failed without metadata is found by its intent: credits.recharge_failed fires', async (t) => {
  const { account, recharge } = await pendingRecharge(1000);
  const failed = stripeEvent(
    'payment_intent.payment_failed',
    paymentIntent({ id: recharge.paymentIntentId, failureCode: 'card_declined' }),
  );
  t.is((await deliver(failed)).status, 200);
  t.like(await applied(temporal, failed.id), { outcome: 'failed', accountId: account.id, rechargeId: recharge.id });
  t.deepEqual(await eventsOf(account.id, 'credits.recharge_failed'), [
    { reason: 'card_declined', consecutiveFailures: 1, autoRechargeEnabled: true },
  ]);
  t.like((await settings(account)).lastRecharge, { id: recharge.id, status: 'failed' });
});

test('a payment_intent.succeeded without metadata is found by its intent: the recharge granted once', async (t) => {
  const { account, recharge } = await pendingRecharge(1000);
  const before = await balance(account);
  const succeeded = stripeEvent('payment_intent.succeeded', paymentIntent({ id: recharge.paymentIntentId }));
  t.is((await deliver(succeeded)).status, 200);
  t.is((await deliver(succeeded, { secondsAgo: 20 })).status, 200);
  t.like(await applied(temporal, succeeded.id), { outcome: 'granted', accountId: account.id, rechargeId: recharge.id });
  // The same payment told again by another event (Stripe's retry of a rebuilt one): still once.
  const again = stripeEvent('payment_intent.succeeded', paymentIntent({ id: recharge.paymentIntentId }));
  t.is((await deliver(again)).status, 200);
  t.like(await applied(temporal, again.id), { outcome: 'granted' });
  t.is(await balance(account), before + CREDITS);
  t.like((await settings(account)).lastRecharge, { id: recharge.id, status: 'succeeded' });
  t.deepEqual(
    (await eventsOf(account.id, 'credits.granted')).map((g) => g.reason),
    ['purchase', 'recharge'],
  );
});

test('32 calls at once cross the threshold: one recharge, granted once on its event, and the monthly limit holds', async (t) => {
  const account = await withSavedCard();
  t.is(await balance(account), CREDITS);
  const saved = await settings(account);
  t.deepEqual(saved.paymentMethod, { brand: 'visa', last4: '4242' });
  const put = await putSettings(account, { enabled: true, packId: PACK, threshold: 30, monthlyLimit: 1 });
  t.is(put.status, 200);
  t.like(put.body, { enabled: true, packId: PACK, threshold: 30, monthlyLimit: 1, rechargesThisMonth: 0 });
  const audit = (await request('GET', '/api/v1/account/audit-log?action=auto_recharge.updated', { token: account.ownerToken })).body.items;
  t.like(audit[0], { actor: { type: 'owner' }, changes: { enabled: [null, true], threshold: [null, 30] } });

  // 32 charged calls at once take the balance from 40 to 8: past 30 by many of them together.
  const calls = await Promise.all(Array.from({ length: 32 }, (_, i) => hash(account, i)));
  t.true(
    calls.every((c) => c.status === 200),
    'calls never wait for, nor fail by, a recharge',
  );
  const recharge = await nextRecharge(account, null);
  t.is(recharge.status, 'pending');
  t.is((await rechargesOf(account.id)).length, 1, 'one recharge');
  t.like(await settings(account), { rechargesThisMonth: 1 });
  t.is(await balance(account), 8, 'nothing granted before Stripe says it is paid');

  // Stripe's event, twice: granted once, as a recharge.
  const succeeded = stripeEvent(
    'payment_intent.succeeded',
    paymentIntent({ id: recharge.paymentIntentId, accountId: account.id, rechargeId: recharge.id }),
  );
  t.is((await deliver(succeeded)).status, 200);
  t.is((await deliver(succeeded, { secondsAgo: 20 })).status, 200);
  t.like(await applied(temporal, succeeded.id), { outcome: 'granted', accountId: account.id });
  t.is(await balance(account), 8 + CREDITS);
  t.like((await settings(account)).lastRecharge, { id: recharge.id, status: 'succeeded' });
  t.deepEqual(
    (await eventsOf(account.id, 'credits.granted')).map((g) => [g.amount, g.reason]),
    [
      [CREDITS, 'purchase'],
      [CREDITS, 'recharge'],
    ],
  );

  // Below the threshold again: the month's limit of one holds, and says when it arms again.
  await Promise.all(Array.from({ length: 20 }, (_, i) => hash(account, 100 + i)));
  const armsAt = await eventually(
    () =>
      withServiceDb(
        async (db) =>
          ((await db.collection('accounts').findOne({ _id: account.id as never }))?.rechargeArmsAt as Date | undefined) ?? undefined,
      ),
    'the month limit noted',
  );
  const now = new Date();
  t.is(armsAt.getTime(), Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  t.is((await rechargesOf(account.id)).length, 1, 'no second recharge this month');
  t.is(await balance(account), 28);
});

test('failed recharges fire credits.recharge_failed and mail the billing contact; the third in a row turns auto-recharge off and says so', async (t) => {
  const contact = uniqueAddress('billing');
  const account = await withSavedCard(contact);
  // Above the whole balance: every charged call is below it.
  t.is((await putSettings(account, { enabled: true, packId: PACK, threshold: 1000, monthlyLimit: 10 })).status, 200);
  let previous: string | null = null;
  const reasons = ['card_declined', 'authentication_required', 'expired_card'];
  for (const [i, reason] of reasons.entries()) {
    t.is((await hash(account, i)).status, 200);
    const recharge = await nextRecharge(account, previous);
    previous = recharge.id;
    const failed = stripeEvent(
      'payment_intent.payment_failed',
      paymentIntent({ id: recharge.paymentIntentId, accountId: account.id, rechargeId: recharge.id, failureCode: reason }),
    );
    t.is((await deliver(failed)).status, 200);
    t.like(await applied(temporal, failed.id), { outcome: 'failed' });
  }
  const failures = await eventsOf(account.id, 'credits.recharge_failed');
  t.deepEqual(failures, [
    { reason: 'card_declined', consecutiveFailures: 1, autoRechargeEnabled: true },
    { reason: 'authentication_required', consecutiveFailures: 2, autoRechargeEnabled: true },
    { reason: 'expired_card', consecutiveFailures: 3, autoRechargeEnabled: false },
  ]);
  const after = await settings(account);
  t.like(after, {
    enabled: false,
    consecutiveFailures: 3,
    rechargesThisMonth: 3,
    lastRecharge: { status: 'failed', reason: 'expired_card' },
  });
  t.regex(after.disabledReason, /3 recharges failed in a row/);
  const disabled = (await request('GET', '/api/v1/account/audit-log?action=auto_recharge.disabled', { token: account.ownerToken })).body
    .items;
  t.like(disabled[0], { actor: { type: 'service' }, changes: { enabled: [true, false] } });
  // Off: the threshold left the account's document, so a further call starts nothing; nothing was granted by a recharge.
  const latch = await withServiceDb((db) =>
    db.collection('accounts').findOne({ _id: account.id as never }, { projection: { rechargeBelow: 1, rechargeArmed: 1 } }),
  );
  t.deepEqual(Object.keys(latch ?? {}), ['_id']);
  t.is((await hash(account, 99)).status, 200);
  t.is((await rechargesOf(account.id)).length, 3);
  t.is(await balance(account), CREDITS - 4);
  t.deepEqual(
    (await eventsOf(account.id, 'credits.granted')).map((g) => g.reason),
    ['purchase'],
  );
  // Each failure mailed once to the account's contact, the third saying recharges are off.
  const off = await waitForMail(contact, { subject: /are off/ });
  t.true(off.links.some((l) => l.endsWith('/dashboard/billing')));
  t.regex(off.text, /third failure in a row/);
  const mails = await eventually(async () => {
    const got = await mailsTo(contact);
    return got.length >= 3 ? got : undefined;
  }, 'three failure mails');
  t.deepEqual(mails.map((m) => (/failed$/.test(m.subject) ? 'failed' : 'off')).sort(), ['failed', 'failed', 'off']);
  t.true(
    mails.some((m) => /confirm the payment/.test(m.text)),
    'authentication_required is said in words',
  );
  // The owner turns it on again: the failures start afresh.
  t.like((await putSettings(account, { enabled: true, packId: PACK, threshold: 5, monthlyLimit: 10 })).body, {
    enabled: true,
    consecutiveFailures: 0,
    disabledReason: null,
  });
});
