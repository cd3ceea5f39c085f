//! Refunds and disputes from Stripe's signed events: taken only from what is left of the purchase's
//! grant, in whatever order they arrive; a dispute won gives back what it took, a lost one keeps it.
import test from 'ava';
import { callTool, isProblem, request, type UncheckedJson } from '../helpers/api.js';
import { stripeId } from '../helpers/stripe.js';
import { AMOUNT, apply, balance, buyer, CREDITS, eventsOf, grants, purchases, spend } from './support/fulfilment.js';

test('a refund that arrives before its completion is applied after it; refunds void their share of what is left, never more', async (t) => {
  const { account, purchaseId, sessionEvent, refundEvent } = await buyer();
  // 20% refunded before Stripe's completion arrives: recorded, nothing to take yet.
  t.like(await apply(refundEvent(200)), { outcome: 'recorded' });
  t.is(await balance(account), 0);
  await apply(sessionEvent('checkout.session.completed'));
  t.is(await balance(account), CREDITS - 4, 'floor(20 x 200 / 1000) = 4 voided once granted');
  await spend(account, 8); // 8 of the 16 left spent
  // Half refunded: 10 due in all, 4 taken: 6 more, from the 8 left.
  await apply(refundEvent(500));
  t.is(await balance(account), 2);
  // An older refund event arriving late changes nothing (the refunded total only grows).
  await apply(refundEvent(200));
  t.is(await balance(account), 2);
  // Refunded in full: 10 more due, only 2 left: 2, never the spent credits.
  const full = refundEvent(AMOUNT);
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
  const { account, purchaseId, sessionEvent, disputeEvent } = await buyer();
  await apply(sessionEvent('checkout.session.completed'));
  await spend(account, 5);
  const dp = stripeId('du');
  await apply(disputeEvent('charge.dispute.created', dp, 'needs_response'));
  t.is(await balance(account), 0);
  t.like((await purchases(account))[0], { id: purchaseId, status: 'disputed', creditsVoided: 15 });
  t.true(isProblem(await callTool(account.apiKey, 'hash-text', { text: 'x', algorithm: 'sha256' }), 402, 'insufficient_credits'));
  await apply(disputeEvent('charge.dispute.closed', dp, 'won'));
  t.is(await balance(account), 15);
  t.like((await purchases(account))[0], { status: 'paid', creditsVoided: 0 });
  // An update of the dispute's earlier status, delivered after it closed: the closed status stands.
  await apply(disputeEvent('charge.dispute.updated', dp, 'under_review'));
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
  await apply(won.sessionEvent('checkout.session.completed'));
  const dp = stripeId('du');
  await apply(won.disputeEvent('charge.dispute.closed', dp, 'won'));
  await apply(won.disputeEvent('charge.dispute.created', dp, 'needs_response'));
  t.is(await balance(won.account), CREDITS);
  t.deepEqual(await eventsOf(won.account.id, 'credits.voided'), []);

  const lost = await buyer();
  await apply(lost.sessionEvent('checkout.session.completed'));
  const dl = stripeId('du');
  await apply(lost.disputeEvent('charge.dispute.created', dl, 'needs_response'));
  await apply(lost.disputeEvent('charge.dispute.closed', dl, 'lost'));
  t.is(await balance(lost.account), 0);
  t.like((await purchases(lost.account))[0], { status: 'disputed', creditsVoided: CREDITS });
});
