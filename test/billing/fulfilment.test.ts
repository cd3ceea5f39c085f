//! Fulfilment from Stripe's signed events, posted here as Stripe would (stripe-mock sends none):
//! a purchase granted once whatever is duplicated or reordered, refunds and disputes taken only from
//! what is left of its grant, forged, stale and replayed signatures refused, foreign sessions
//! acknowledged and left alone, nothing of the customer in workflow history, and Stripe's own keys
//! in no log, history or collection.
import test from 'ava';
import { Client, type Connection } from '@temporalio/client';
import { callTool, isProblem, newAccount, request, type TestAccount, type UncheckedJson } from '../helpers/api.js';
import { placesHolding } from '../helpers/secrets.js';
import { connectTemporal, historyText } from '../helpers/temporal.js';
import { testEnv } from '../helpers/env.js';
import { withServiceDb } from '../helpers/db.js';
import { stackLogLine } from '../helpers/stack-logs.js';
import {
  applied,
  charge,
  checkout,
  deliver,
  dispute,
  putPack,
  session,
  sign,
  stripeEvent,
  stripeId,
  WEBHOOK_PATH,
} from '../helpers/stripe.js';

const tag = stripeId('x').slice(-6).toLowerCase();
/** Small packs, so that a test spends part of one with a few cheap calls (hash-text costs 1). */
const PACK = `small-${tag}`;
const CREDITS = 20;
const AMOUNT = 1000;

let connection: Connection;
let temporal: Client;

test.before(async () => {
  await putPack(PACK, { credits: CREDITS, amount: AMOUNT, expiresInDays: 365 });
  connection = await connectTemporal();
  temporal = new Client({ connection, namespace: testEnv.temporalNamespace() });
});

test.after.always(async () => {
  await connection?.close();
});

const balance = async (a: TestAccount) => (await request('GET', '/api/v1/account', { token: a.ownerToken })).body.balance as number;
const purchases = async (a: TestAccount) =>
  (await request('GET', '/api/v1/account/purchases', { token: a.ownerToken })).body.items as Record<string, UncheckedJson>[];
const grants = async (a: TestAccount) =>
  (await request('GET', '/api/v1/account/grants', { token: a.ownerToken })).body.items as Record<string, UncheckedJson>[];
const eventsOf = (accountId: string, kind: string) =>
  withServiceDb(async (db) =>
    (await db.collection('events').find({ accountId, event: kind }).sort({ createdAt: 1 }).toArray()).map(
      (e) => e.data as Record<string, UncheckedJson>,
    ),
  );

/** An account with no credits and one pending purchase of PACK. */
async function buyer() {
  const account = await newAccount(0);
  const { sessionId, purchaseId } = await checkout(account.ownerToken, PACK);
  return { account, sessionId, purchaseId, pi: stripeId('pi') };
}

/** Delivers the event and waits until its workflow applied it. */
async function apply(event: ReturnType<typeof stripeEvent>, options: { secondsAgo?: number } = {}) {
  const res = await deliver(event, options);
  if (res.status !== 200) throw new Error(`${event.type}: ${res.status} ${JSON.stringify(res.body)}`);
  return applied(temporal, event.id);
}

/** Spends `n` credits with n calls of hash-text (cost 1). */
async function spend(account: TestAccount, n: number) {
  const answers = await Promise.all(
    Array.from({ length: n }, (_, i) => callTool(account.apiKey, 'hash-text', { text: `spend ${i}`, algorithm: 'sha256' })),
  );
  if (answers.some((a) => a.status !== 200)) throw new Error(`a call was not charged: ${answers.map((a) => a.status).join(',')}`);
}

test('a paid checkout is granted once, however often and in whatever form Stripe delivers it', async (t) => {
  const { account, sessionId, purchaseId, pi } = await buyer();
  const completed = stripeEvent('checkout.session.completed', session({ id: sessionId, accountId: account.id, paymentIntentId: pi }));
  const first = await deliver(completed);
  t.is(first.status, 200);
  t.deepEqual(first.body, { received: true });
  // Stripe's redelivery: the same event signed afresh, and the async success of the same session.
  t.is((await deliver(completed, { secondsAgo: 40 })).status, 200);
  const asyncSucceeded = stripeEvent(
    'checkout.session.async_payment_succeeded',
    session({ id: sessionId, accountId: account.id, paymentIntentId: pi }),
  );
  const outcomes = await Promise.all([applied(temporal, completed.id), apply(asyncSucceeded), apply(asyncSucceeded, { secondsAgo: 5 })]);
  t.like(outcomes[0], { outcome: 'granted', accountId: account.id });
  t.is(await balance(account), CREDITS);
  const [purchase] = await purchases(account);
  t.like(purchase, { id: purchaseId, status: 'paid', credits: CREDITS, creditsVoided: 0 });
  t.truthy(purchase!.paidAt);
  const [grant] = await grants(account);
  t.like(grant, { amount: CREDITS, reason: 'purchase', remaining: CREDITS, voided: 0, idempotencyKey: `checkout:${sessionId}` });
  // The pack's expiry, counted from the payment.
  t.is(Date.parse(grant!.expiresAt) - Date.parse(purchase!.paidAt), 365 * 24 * 3600 * 1000);
  t.deepEqual(await eventsOf(account.id, 'credits.granted'), [{ amount: CREDITS, reason: 'purchase', balance: CREDITS }]);
  // The workflow is the account's in the Temporal UI, and its history holds nothing of the customer.
  const described = await temporal.workflow.getHandle(`stripe-event-${completed.id}`).describe();
  t.deepEqual(described.searchAttributes.AccountId, [account.id]);
  const history = historyText(await temporal.workflow.getHandle(`stripe-event-${completed.id}`).fetchHistory());
  t.true(history.includes(sessionId));
  for (const secret of [
    'buyer-secret@example.test',
    '1 Private Road',
    'Ada Buyer',
    process.env.STRIPE_WEBHOOK_SECRET!,
    process.env.STRIPE_SECRET_KEY!,
  ])
    t.false(history.includes(secret), secret);
  // Recorded in the audit log: the purchase paid and its grant, by the service.
  const audit = (await request('GET', '/api/v1/account/audit-log', { token: account.ownerToken })).body.items as Record<
    string,
    UncheckedJson
  >[];
  t.like(
    audit.find((e) => e.action === 'purchase.paid'),
    { actor: { type: 'service' }, target: { id: purchaseId } },
  );
  t.is(audit.filter((e) => e.action === 'credits.granted').length, 1);
});

test('a refund that arrives before its completion is applied after it; refunds void their share of what is left, never more', async (t) => {
  const { account, sessionId, purchaseId, pi } = await buyer();
  // 20% refunded before Stripe's completion arrives: recorded, nothing to take yet.
  t.like(await apply(stripeEvent('charge.refunded', charge({ paymentIntentId: pi, amount: AMOUNT, refunded: 200 }))), {
    outcome: 'recorded',
  });
  t.is(await balance(account), 0);
  await apply(stripeEvent('checkout.session.completed', session({ id: sessionId, accountId: account.id, paymentIntentId: pi })));
  t.is(await balance(account), CREDITS - 4, 'floor(20 x 200 / 1000) = 4 voided once granted');
  await spend(account, 8); // 8 of the 16 left spent
  // Half refunded: 10 due in all, 4 taken: 6 more, from the 8 left.
  await apply(stripeEvent('charge.refunded', charge({ paymentIntentId: pi, amount: AMOUNT, refunded: 500 })));
  t.is(await balance(account), 2);
  // An older refund event arriving late changes nothing (the refunded total only grows).
  await apply(stripeEvent('charge.refunded', charge({ paymentIntentId: pi, amount: AMOUNT, refunded: 200 })));
  t.is(await balance(account), 2);
  // Refunded in full: 10 more due, only 2 left: 2, never the spent credits.
  const full = stripeEvent('charge.refunded', charge({ paymentIntentId: pi, amount: AMOUNT, refunded: AMOUNT }));
  await apply(full);
  await apply(full, { secondsAgo: 30 }); // a redelivery finds the workflow done, and starts nothing
  t.is(await balance(account), 0);
  const [purchase] = await purchases(account);
  t.like(purchase, { id: purchaseId, status: 'refunded', creditsVoided: 12, amountRefunded: AMOUNT });
  t.regex(purchase!.receiptUrl, /^https:\/\/pay\.stripe\.com\/receipts\//);
  t.like((await grants(account))[0], { amount: CREDITS, remaining: 0, voided: 12 });
  const voided = await eventsOf(account.id, 'credits.voided');
  t.deepEqual(
    voided.map((v) => v.amount),
    [4, 6, 2],
  );
  t.true(voided.every((v) => v.reason === 'refund' && v.purchaseId === purchaseId));
  t.deepEqual(
    voided.map((v) => v.balance),
    [16, 2, 0],
  );
  const audit = (await request('GET', '/api/v1/account/audit-log?action=purchase.refunded', { token: account.ownerToken })).body
    .items as Record<string, UncheckedJson>[];
  t.true(audit.length >= 2);
  t.true(audit.every((e) => e.actor.type === 'service'));
});

test('a dispute takes what is left of the purchase; closed won, it is given back; a late open status changes nothing', async (t) => {
  const { account, sessionId, purchaseId, pi } = await buyer();
  await apply(stripeEvent('checkout.session.completed', session({ id: sessionId, accountId: account.id, paymentIntentId: pi })));
  await spend(account, 5);
  const dp = stripeId('du');
  await apply(stripeEvent('charge.dispute.created', dispute({ id: dp, paymentIntentId: pi, status: 'needs_response', amount: AMOUNT })));
  t.is(await balance(account), 0);
  t.like((await purchases(account))[0], { id: purchaseId, status: 'disputed', creditsVoided: 15 });
  t.true(isProblem(await callTool(account.apiKey, 'hash-text', { text: 'x', algorithm: 'sha256' }), 402, 'insufficient_credits'));
  await apply(stripeEvent('charge.dispute.closed', dispute({ id: dp, paymentIntentId: pi, status: 'won', amount: AMOUNT })));
  t.is(await balance(account), 15);
  t.like((await purchases(account))[0], { status: 'paid', creditsVoided: 0 });
  // An update of the dispute's earlier status, delivered after it closed: the closed status stands.
  await apply(stripeEvent('charge.dispute.updated', dispute({ id: dp, paymentIntentId: pi, status: 'under_review', amount: AMOUNT })));
  t.is(await balance(account), 15);
  t.deepEqual(
    (await eventsOf(account.id, 'credits.voided')).map((v) => [v.amount, v.reason]),
    [[15, 'dispute']],
  );
  t.deepEqual(
    (await eventsOf(account.id, 'credits.granted')).map((v) => v.amount),
    [CREDITS, 15],
  );
  const actions = (
    (await request('GET', '/api/v1/account/audit-log', { token: account.ownerToken })).body.items as { action: string }[]
  ).map((e) => e.action);
  t.true(actions.includes('purchase.disputed') && actions.includes('purchase.dispute_closed'));
});

test('a dispute closed before its opening arrives takes nothing; a lost one keeps what it took', async (t) => {
  const won = await buyer();
  await apply(
    stripeEvent('checkout.session.completed', session({ id: won.sessionId, accountId: won.account.id, paymentIntentId: won.pi })),
  );
  const dp = stripeId('du');
  await apply(stripeEvent('charge.dispute.closed', dispute({ id: dp, paymentIntentId: won.pi, status: 'won', amount: AMOUNT })));
  await apply(
    stripeEvent('charge.dispute.created', dispute({ id: dp, paymentIntentId: won.pi, status: 'needs_response', amount: AMOUNT })),
  );
  t.is(await balance(won.account), CREDITS);
  t.deepEqual(await eventsOf(won.account.id, 'credits.voided'), []);

  const lost = await buyer();
  await apply(
    stripeEvent('checkout.session.completed', session({ id: lost.sessionId, accountId: lost.account.id, paymentIntentId: lost.pi })),
  );
  const dl = stripeId('du');
  await apply(
    stripeEvent('charge.dispute.created', dispute({ id: dl, paymentIntentId: lost.pi, status: 'needs_response', amount: AMOUNT })),
  );
  await apply(stripeEvent('charge.dispute.closed', dispute({ id: dl, paymentIntentId: lost.pi, status: 'lost', amount: AMOUNT })));
  t.is(await balance(lost.account), 0);
  t.like((await purchases(lost.account))[0], { status: 'disputed', creditsVoided: CREDITS });
});

test('a delayed payment that fails leaves the purchase failed and grants nothing', async (t) => {
  const { account, sessionId, purchaseId, pi } = await buyer();
  t.like(
    await apply(
      stripeEvent(
        'checkout.session.completed',
        session({ id: sessionId, accountId: account.id, paymentIntentId: pi, paymentStatus: 'unpaid' }),
      ),
    ),
    { outcome: 'awaiting_payment' },
  );
  t.like((await purchases(account))[0], { id: purchaseId, status: 'pending' });
  t.like(
    await apply(
      stripeEvent(
        'checkout.session.async_payment_failed',
        session({ id: sessionId, accountId: account.id, paymentIntentId: pi, paymentStatus: 'unpaid' }),
      ),
    ),
    { outcome: 'failed' },
  );
  t.like((await purchases(account))[0], { status: 'failed', paidAt: null });
  t.is(await balance(account), 0);
});

test('forged, stale, tampered, unsigned and replayed deliveries are 400 invalid_signature and grant nothing', async (t) => {
  const { account, sessionId, pi } = await buyer();
  const completed = stripeEvent('checkout.session.completed', session({ id: sessionId, accountId: account.id, paymentIntentId: pi }));
  const body = JSON.stringify(completed);
  const refusals = [
    await deliver(completed, { secret: 'whsec_not_the_secret' }),
    await deliver(completed, { secondsAgo: 301 }),
    await deliver(completed, { header: null }),
    await deliver(completed, { header: 't=1,v1=deadbeef' }),
    await request('POST', WEBHOOK_PATH, {
      rawBody: body.replace(`"payment_status":"paid"`, `"payment_status":"paid" `),
      headers: { 'content-type': 'application/json', 'stripe-signature': sign(body) },
    }),
  ];
  for (const res of refusals) t.true(isProblem(res, 400, 'invalid_signature'), `${res.status} ${JSON.stringify(res.body)}`);
  t.is(await balance(account), 0);
  t.like((await purchases(account))[0], { status: 'pending' });
  // The genuine delivery is granted; the very same request sent again is a replay.
  const header = sign(body);
  const genuine = await request('POST', WEBHOOK_PATH, {
    rawBody: body,
    headers: { 'content-type': 'application/json', 'stripe-signature': header },
  });
  t.is(genuine.status, 200);
  const replay = await request('POST', WEBHOOK_PATH, {
    rawBody: body,
    headers: { 'content-type': 'application/json', 'stripe-signature': header },
  });
  t.true(isProblem(replay, 400, 'invalid_signature'));
  await applied(temporal, completed.id);
  t.is(await balance(account), CREDITS);
});

test("an event of a session that is not the service's, or names another account, is acknowledged and grants nothing", async (t) => {
  const { account, sessionId, pi } = await buyer();
  const unknown = stripeEvent(
    'checkout.session.completed',
    session({ id: stripeId('cs'), accountId: account.id, paymentIntentId: stripeId('pi') }),
  );
  t.like(await apply(unknown), { outcome: 'unknown_session' });
  const other = await newAccount(0);
  const foreign = stripeEvent('checkout.session.completed', session({ id: sessionId, accountId: other.id, paymentIntentId: pi }));
  t.like(await apply(foreign), { outcome: 'not_ours' });
  // A type the service does not act on is acknowledged without a workflow.
  t.is((await deliver(stripeEvent('customer.created', { id: stripeId('cus'), object: 'customer' }))).status, 200);
  t.is(await balance(account), 0);
  t.is(await balance(other), 0);
  t.like((await purchases(account))[0], { status: 'pending' });
});

test("a session whose payment intent is not its purchase's grants nothing and is logged; its own intent then pays it", async (t) => {
  const { account, sessionId, purchaseId, pi } = await buyer();
  // A delayed payment method: the completion (unpaid) links the purchase to its intent.
  t.like(
    await apply(
      stripeEvent(
        'checkout.session.completed',
        session({ id: sessionId, accountId: account.id, paymentIntentId: pi, paymentStatus: 'unpaid' }),
      ),
    ),
    { outcome: 'awaiting_payment' },
  );
  const other = stripeEvent(
    'checkout.session.async_payment_succeeded',
    session({ id: sessionId, accountId: account.id, paymentIntentId: stripeId('pi') }),
  );
  t.like(await apply(other), { outcome: 'mismatch' });
  t.like(await stackLogLine(other.id, "Stripe event's session and payment intent disagree: acknowledged, nothing granted"), {
    purchaseId,
    storedPaymentIntentId: pi,
  });
  t.is(await balance(account), 0);
  t.like((await purchases(account))[0], { status: 'pending' });
  // Another purchase's session naming this purchase's intent: refused too.
  const second = await checkout(account.ownerToken, PACK);
  const borrowed = stripeEvent('checkout.session.completed', session({ id: second.sessionId, accountId: account.id, paymentIntentId: pi }));
  t.like(await apply(borrowed), { outcome: 'mismatch' });
  t.is(await balance(account), 0);
  t.like(
    await apply(
      stripeEvent('checkout.session.async_payment_succeeded', session({ id: sessionId, accountId: account.id, paymentIntentId: pi })),
    ),
    { outcome: 'granted' },
  );
  t.is(await balance(account), CREDITS);
});

test('events of one purchase at once, in any order, duplicated, end in the exact balance', async (t) => {
  const { account, sessionId, pi } = await buyer();
  const completed = stripeEvent('checkout.session.completed', session({ id: sessionId, accountId: account.id, paymentIntentId: pi }));
  const refund = stripeEvent('charge.refunded', charge({ paymentIntentId: pi, amount: AMOUNT, refunded: 250 }));
  const refundMore = stripeEvent('charge.refunded', charge({ paymentIntentId: pi, amount: AMOUNT, refunded: 750 }));
  const deliveries = [refundMore, completed, refund, completed, refundMore, refund, completed].map((e, i) => deliver(e, { secondsAgo: i }));
  t.true((await Promise.all(deliveries)).every((r) => r.status === 200));
  await Promise.all([completed, refund, refundMore].map((e) => applied(temporal, e.id)));
  // floor(20 x 750 / 1000) = 15 voided of 20, once.
  t.is(await balance(account), 5);
  t.like((await purchases(account))[0], { status: 'partially_refunded', amountRefunded: 750, creditsVoided: 15 });
  t.deepEqual(
    (await eventsOf(account.id, 'credits.granted')).map((g) => g.amount),
    [CREDITS],
  );
});

test("Stripe's secret key and webhook secret are in no log of the stack, no purchase's workflow history and no collection", async (t) => {
  const secrets = [process.env.STRIPE_SECRET_KEY, process.env.STRIPE_WEBHOOK_SECRET];
  if (secrets.some((s) => !s)) throw new Error('the stack gave no STRIPE_SECRET_KEY or STRIPE_WEBHOOK_SECRET: run through `npm test`');
  // A purchase end to end: the checkout (the key reaches stripe-mock), its signed completion and a refund.
  const { account, sessionId, pi } = await buyer();
  const completed = stripeEvent('checkout.session.completed', session({ id: sessionId, accountId: account.id, paymentIntentId: pi }));
  const refund = stripeEvent('charge.refunded', charge({ paymentIntentId: pi, amount: AMOUNT, refunded: 100 }));
  for (const event of [completed, refund]) await apply(event);
  t.is(await balance(account), CREDITS - 2, 'floor(20 x 100 / 1000) = 2 taken back');

  for (const event of [completed, refund]) {
    const history = historyText(await temporal.workflow.getHandle(`stripe-event-${event.id}`).fetchHistory());
    for (const secret of secrets) t.false(history.includes(secret!), `the history of ${event.id} holds a Stripe secret`);
  }
  t.deepEqual(await placesHolding(secrets as string[]), [], 'no log and no collection');
});
