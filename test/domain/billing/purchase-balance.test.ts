//! A purchase and the balance change of a Stripe event on the real database, as a reader sees them:
//! the purchase shows the event's status and the credits it takes before the balance moves, so
//! whoever reads the new balance reads why (a refund, a dispute, a dispute won).
import test from 'ava';
import { connectMongo, collections, type Mongo } from '../../../lib/mongo.js';
import { createLogger } from '../../../lib/logger.js';
import type { PurchaseDoc } from '../../../domain/billing/documents.js';
import { createLedger, type Ledger } from '../../../domain/ledger/ledger.js';
import { createAccounts } from '../../../domain/accounts/accounts.js';
import { createGrants } from '../../../domain/ledger/grants.js';
import { createFulfilment } from '../../../domain/billing/fulfilment.js';
import { newId } from '../../../lib/ids.js';

let mongo: Mongo;

test.before(async () => {
  if (!process.env.MONGODB_URL) throw new Error('MONGODB_URL is not set: run through `npm test`');
  mongo = await connectMongo(process.env.MONGODB_URL.replace(/\/[^/]*$/, '/fulfilment_tests'));
});
test.after.always(() => mongo?.close());

const CREDITS = 20;
const AMOUNT = 1000;

/**
 * Fulfilment over the real ledger, noting what a reader finds at the moment each balance change
 * starts: the purchase as stored, and the balance before the change.
 */
function observed(purchaseId: string) {
  const ledger = createLedger(mongo.db);
  const seen: { step: string; status: string; creditsVoided: number; balance: number }[] = [];
  const look = async (step: string, accountId: string) => {
    const p = (await collections(mongo.db).purchases.findOne({ _id: purchaseId }))!;
    seen.push({ step, status: p.status, creditsVoided: p.creditsVoided, balance: (await ledger.balanceOf(accountId)).balance });
  };
  const watching: Pick<Ledger, 'voidLot' | 'restoreLot' | 'balanceOf'> = {
    balanceOf: ledger.balanceOf,
    voidLot: async (request, now) => {
      await look(`void ${request.kind}`, request.accountId);
      return ledger.voidLot(request, now);
    },
    restoreLot: async (request, now) => {
      await look('restore', request.accountId);
      return ledger.restoreLot(request, now);
    },
  };
  const fulfilment = createFulfilment({
    db: mongo.db,
    grants: createGrants(mongo.db),
    ledger: watching,
    log: createLogger({ name: 'test', level: 'silent' }),
  });
  return { fulfilment, ledger, seen };
}

async function paidPurchase() {
  const accountId = (await createAccounts(mongo.db).open({ credits: 0 })).account._id;
  const purchase: PurchaseDoc = {
    _id: newId('pur'),
    accountId,
    packId: 'pack',
    packName: 'Pack',
    credits: CREDITS,
    amount: AMOUNT,
    currency: 'usd',
    expiresInDays: null,
    sessionId: newId('cs'),
    customerId: 'cus_test',
    saveCard: false,
    paymentIntentId: null,
    status: 'pending',
    grantId: null,
    creditsVoided: 0,
    amountRefunded: 0,
    createdAt: new Date(),
    paidAt: null,
    receiptUrl: null,
  };
  await collections(mongo.db).purchases.insertOne(purchase);
  return { purchase, pi: newId('pi') };
}

const fact = { eventId: 'evt_test', created: Math.floor(Date.now() / 1000) };

test('a refund and a dispute: the purchase shows each before the balance moves; a won dispute shows paid before its credits come back', async (t) => {
  const { purchase, pi } = await paidPurchase();
  const { fulfilment, ledger, seen } = observed(purchase._id);
  const session = {
    ...fact,
    kind: 'session',
    type: 'checkout.session.completed',
    sessionId: purchase.sessionId,
    paymentStatus: 'paid',
    paymentIntentId: pi,
    customerId: null,
    clientReferenceId: purchase.accountId,
  } as const;
  t.like(await fulfilment.applySession(session, Date.now()), { outcome: 'granted' });
  t.is((await ledger.balanceOf(purchase.accountId)).balance, CREDITS);
  seen.splice(0);

  // A quarter refunded: 5 credits. At the void the purchase already says so; the balance does not yet.
  await fulfilment.applyCharge(
    { ...fact, kind: 'charge', type: 'charge.refunded', paymentIntentId: pi, amount: AMOUNT, amountRefunded: 250, receiptUrl: null },
    Date.now(),
  );
  t.deepEqual(
    seen.find((s) => s.step === 'void refund'),
    { step: 'void refund', status: 'partially_refunded', creditsVoided: 5, balance: CREDITS },
  );
  t.is((await ledger.balanceOf(purchase.accountId)).balance, 15);

  await fulfilment.applyDispute(
    { ...fact, kind: 'dispute', type: 'charge.dispute.created', disputeId: 'du_test1', paymentIntentId: pi, status: 'needs_response' },
    Date.now(),
  );
  t.like(
    seen.find((s) => s.step === 'void dispute'),
    { status: 'disputed', creditsVoided: CREDITS, balance: 15 },
  );
  t.is((await ledger.balanceOf(purchase.accountId)).balance, 0);
  seen.splice(0);

  await fulfilment.applyDispute(
    { ...fact, kind: 'dispute', type: 'charge.dispute.closed', disputeId: 'du_test1', paymentIntentId: pi, status: 'won' },
    Date.now(),
  );
  t.like(
    seen.find((s) => s.step === 'restore'),
    { status: 'partially_refunded', creditsVoided: 5, balance: 0 },
  );
  t.is((await ledger.balanceOf(purchase.accountId)).balance, 15);
  t.like(await collections(mongo.db).purchases.findOne({ _id: purchase._id }), {
    status: 'partially_refunded',
    creditsVoided: 5,
    amountRefunded: 250,
  });
});
