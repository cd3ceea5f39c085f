//! Fulfilment from Stripe's signed events: a purchase granted once whatever is duplicated or
//! reordered, a delayed payment that fails granting nothing, foreign sessions and payment intents that
//! are not the purchase's acknowledged and left alone, nothing of the customer in workflow history.
import test from 'ava';
import { newAccount, request, type UncheckedJson } from '../helpers/api.js';
import { historyText } from '../helpers/temporal.js';
import { stackLogLine } from '../helpers/stack-logs.js';
import { applied, checkout, deliver, stripeEvent, stripeId } from '../helpers/stripe.js';
import { apply, balance, buyer, CREDITS, eventsOf, grants, PACK, purchases, temporal } from './support/fulfilment.js';

test('a paid checkout is granted once, however often and in whatever form Stripe delivers it', async (t) => {
  const { account, sessionId, purchaseId, sessionEvent } = await buyer();
  const completed = sessionEvent('checkout.session.completed');
  const first = await deliver(completed);
  t.is(first.status, 200);
  t.deepEqual(first.body, { received: true });
  // Stripe's redelivery: the same event signed afresh, and the async success of the same session.
  t.is((await deliver(completed, { secondsAgo: 40 })).status, 200);
  const asyncSucceeded = sessionEvent('checkout.session.async_payment_succeeded');
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

test('a delayed payment that fails leaves the purchase failed and grants nothing', async (t) => {
  const { account, purchaseId, sessionEvent } = await buyer();
  t.like(await apply(sessionEvent('checkout.session.completed', { paymentStatus: 'unpaid' })), { outcome: 'awaiting_payment' });
  t.like((await purchases(account))[0], { id: purchaseId, status: 'pending' });
  t.like(await apply(sessionEvent('checkout.session.async_payment_failed', { paymentStatus: 'unpaid' })), { outcome: 'failed' });
  t.like((await purchases(account))[0], { status: 'failed', paidAt: null });
  t.is(await balance(account), 0);
});

test("an event of a session that is not the service's, or names another account, is acknowledged and grants nothing", async (t) => {
  const { account, sessionEvent } = await buyer();
  const unknown = sessionEvent('checkout.session.completed', { id: stripeId('cs'), paymentIntentId: stripeId('pi') });
  t.like(await apply(unknown), { outcome: 'unknown_session' });
  const other = await newAccount(0);
  const foreign = sessionEvent('checkout.session.completed', { accountId: other.id });
  t.like(await apply(foreign), { outcome: 'not_ours' });
  // A type the service does not act on is acknowledged without a workflow.
  t.is((await deliver(stripeEvent('customer.created', { id: stripeId('cus'), object: 'customer' }))).status, 200);
  t.is(await balance(account), 0);
  t.is(await balance(other), 0);
  t.like((await purchases(account))[0], { status: 'pending' });
});

test("a session whose payment intent is not its purchase's grants nothing and is logged; its own intent then pays it", async (t) => {
  const { account, purchaseId, pi, sessionEvent } = await buyer();
  // A delayed payment method: the completion (unpaid) links the purchase to its intent.
  t.like(await apply(sessionEvent('checkout.session.completed', { paymentStatus: 'unpaid' })), { outcome: 'awaiting_payment' });
  const other = sessionEvent('checkout.session.async_payment_succeeded', { paymentIntentId: stripeId('pi') });
  t.like(await apply(other), { outcome: 'mismatch' });
  t.like(await stackLogLine(other.id, "Stripe event's session and payment intent disagree: acknowledged, nothing granted"), {
    purchaseId,
    storedPaymentIntentId: pi,
  });
  t.is(await balance(account), 0);
  t.like((await purchases(account))[0], { status: 'pending' });
  // Another purchase's session naming this purchase's intent: refused too.
  const second = await checkout(account.ownerToken, PACK);
  const borrowed = sessionEvent('checkout.session.completed', { id: second.sessionId });
  t.like(await apply(borrowed), { outcome: 'mismatch' });
  t.is(await balance(account), 0);
  t.like(await apply(sessionEvent('checkout.session.async_payment_succeeded')), { outcome: 'granted' });
  t.is(await balance(account), CREDITS);
});

test('events of one purchase at once, in any order, duplicated, end in the exact balance', async (t) => {
  const { account, sessionEvent, refundEvent } = await buyer();
  const completed = sessionEvent('checkout.session.completed');
  const refund = refundEvent(250);
  const refundMore = refundEvent(750);
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
