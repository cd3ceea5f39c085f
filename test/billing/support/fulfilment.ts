//! Fulfilment's test bed (test/billing/fulfilment-*.test.ts): a small pack of the file's own, a
//! buyer with one pending purchase of it, Stripe's events delivered signed as Stripe would (stripe-mock
//! sends none) and waited for until their workflow applied them, and the account read back.
import test from 'ava';
import { Client, type Connection } from '@temporalio/client';
import { callTool, newAccount, request, type TestAccount, type UncheckedJson } from '../../helpers/api.js';
import { connectTemporal } from '../../helpers/temporal.js';
import { testEnv } from '../../helpers/env.js';
import { withServiceDb } from '../../helpers/db.js';
import { applied, charge, checkout, deliver, dispute, putPack, session, stripeEvent, stripeId } from '../../helpers/stripe.js';

const tag = stripeId('x').slice(-6).toLowerCase();
/** Small packs, so that a test spends part of one with a few cheap calls (hash-text costs 1). */
export const PACK = `small-${tag}`;
export const CREDITS = 20;
export const AMOUNT = 1000;

let connection: Connection;
export let temporal: Client;

test.before(async () => {
  await putPack(PACK, { credits: CREDITS, amount: AMOUNT, expiresInDays: 365 });
  connection = await connectTemporal();
  temporal = new Client({ connection, namespace: testEnv.temporalNamespace() });
});

test.after.always(async () => {
  await connection?.close();
});

export const balance = async (a: TestAccount) => (await request('GET', '/api/v1/account', { token: a.ownerToken })).body.balance as number;
export const purchases = async (a: TestAccount) =>
  (await request('GET', '/api/v1/account/purchases', { token: a.ownerToken })).body.items as Record<string, UncheckedJson>[];
export const grants = async (a: TestAccount) =>
  (await request('GET', '/api/v1/account/grants', { token: a.ownerToken })).body.items as Record<string, UncheckedJson>[];
export const eventsOf = (accountId: string, kind: string) =>
  withServiceDb(async (db) =>
    (await db.collection('events').find({ accountId, event: kind }).sort({ createdAt: 1 }).toArray()).map(
      (e) => e.data as Record<string, UncheckedJson>,
    ),
  );

/**
 * An account with no credits and one pending purchase of PACK, with Stripe's events about that
 * purchase: its checkout session's, its charge refunded, its payment disputed.
 */
export async function buyer() {
  const account = await newAccount(0);
  const { sessionId, purchaseId } = await checkout(account.ownerToken, PACK);
  const pi = stripeId('pi');
  return {
    account,
    sessionId,
    purchaseId,
    pi,
    /** An event of the purchase's checkout session: this account's, paid through `pi`, unless `fields` say otherwise. */
    sessionEvent: (type: string, fields: Partial<Parameters<typeof session>[0]> = {}) =>
      stripeEvent(type, session({ id: sessionId, accountId: account.id, paymentIntentId: pi, ...fields })),
    /** `charge.refunded` of the purchase's charge, `refunded` of its AMOUNT refunded so far. */
    refundEvent: (refunded: number) => stripeEvent('charge.refunded', charge({ paymentIntentId: pi, amount: AMOUNT, refunded })),
    /** An event of type `type` about the dispute `id` of the purchase's payment, in `status`. */
    disputeEvent: (type: string, id: string, status: string) =>
      stripeEvent(type, dispute({ id, paymentIntentId: pi, status, amount: AMOUNT })),
  };
}

/** Delivers the event and waits until its workflow applied it. */
export async function apply(event: ReturnType<typeof stripeEvent>, options: { secondsAgo?: number } = {}) {
  const res = await deliver(event, options);
  if (res.status !== 200) throw new Error(`${event.type}: ${res.status} ${JSON.stringify(res.body)}`);
  return applied(temporal, event.id);
}

/** Spends `n` credits with n calls of hash-text (cost 1). */
export async function spend(account: TestAccount, n: number) {
  const answers = await Promise.all(
    Array.from({ length: n }, (_, i) => callTool(account.apiKey, 'hash-text', { text: `spend ${i}`, algorithm: 'sha256' })),
  );
  if (answers.some((a) => a.status !== 200)) throw new Error(`a call was not charged: ${answers.map((a) => a.status).join(',')}`);
}
