//! Purchases arriving through the chaos run's faults: buyers check out before the first fault, then
//! Stripe's events for their purchases (completions, their redeliveries and async successes,
//! refunds twice over, disputes opened and won, shuffled) are posted while parts of the stack die,
//! each retried as Stripe retries (signed afresh, until a 2xx). Afterwards, once every event's
//! workflow has finished, each buyer's balance must be exactly what its purchase and refund call
//! for, from one grant: anything else is a mismatch of the run's audit.
import { Client, Connection } from '@temporalio/client';
import { charge, dispute, session, sign, stripeEvent, stripeId, type StripeEvent } from '../../helpers/stripe.js';
import type { UncheckedJson } from '../../helpers/api.js';
import { temporalConnectOptions, type TemporalSettings } from '../../../lib/config-temporal.js';

export interface PurchaseFeedOptions {
  apiUrl: string;
  adminToken: string;
  /** The stack's STRIPE_WEBHOOK_SECRET. */
  webhookSecret: string;
  temporal: TemporalSettings;
  /** Buyers, each with one purchase. */
  buyers: number;
  seed: number;
  log: (line: string) => void;
}

interface Buyer {
  accountId: string;
  ownerToken: string;
  refunded: number;
}

const CREDITS = 500;
const AMOUNT = 1000;
/** How long a delivery is retried, as Stripe would for days: the faults are over long before. */
const DELIVERY_DEADLINE_MS = 10 * 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function json(
  apiUrl: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: UncheckedJson }> {
  const res = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A deterministic shuffle of the run's seed. */
function shuffle<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let state = seed % 2 ** 31 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The buyers and the shuffled deliveries of their purchases' events, made before any fault. */
export async function preparePurchases(options: PurchaseFeedOptions): Promise<{ buyers: Buyer[]; deliveries: StripeEvent[] }> {
  const pack = `chaos-${options.seed}-${stripeId('x').slice(-6).toLowerCase()}`;
  const put = await json(options.apiUrl, 'PUT', `/api/v1/admin/credit-packs/${pack}`, options.adminToken, {
    name: 'Chaos pack',
    credits: CREDITS,
    price: { amount: AMOUNT, currency: 'usd' },
  });
  if (put.status !== 200) throw new Error(`chaos: could not put a pack: ${put.status}`);
  const buyers: Buyer[] = [];
  const deliveries: StripeEvent[] = [];
  for (let i = 0; i < options.buyers; i++) {
    const opened = await json(options.apiUrl, 'POST', '/api/v1/admin/accounts', options.adminToken, {
      name: `chaos buyer ${i}`,
      credits: 0,
    });
    if (opened.status !== 201) throw new Error(`chaos: could not open a buyer: ${opened.status}`);
    const accountId = opened.body.account.id as string;
    const ownerToken = opened.body.ownerToken as string;
    const bought = await json(options.apiUrl, 'POST', '/api/v1/account/checkout', ownerToken, { packId: pack });
    if (bought.status !== 201) throw new Error(`chaos: checkout failed: ${bought.status} ${JSON.stringify(bought.body)}`);
    const pi = stripeId('pi');
    const refunded = (i % 4) * 100; // 0 to 30% of the price
    const paid = session({ id: bought.body.sessionId, accountId, paymentIntentId: pi });
    const completed = stripeEvent('checkout.session.completed', paid);
    const refund = stripeEvent('charge.refunded', charge({ paymentIntentId: pi, amount: AMOUNT, refunded }));
    deliveries.push(completed, completed, stripeEvent('checkout.session.async_payment_succeeded', paid), refund, refund);
    if (i % 3 === 0) {
      // A dispute opened and won: nothing voided in the end, whichever arrives first.
      const du = stripeId('du');
      deliveries.push(
        stripeEvent('charge.dispute.created', dispute({ id: du, paymentIntentId: pi, status: 'needs_response', amount: AMOUNT })),
        stripeEvent('charge.dispute.closed', dispute({ id: du, paymentIntentId: pi, status: 'won', amount: AMOUNT })),
      );
    }
    buyers.push({ accountId, ownerToken, refunded });
  }
  return { buyers, deliveries: shuffle(deliveries, options.seed) };
}

/** One delivery as Stripe makes it: retried, signed afresh each time, until the service answers 2xx. */
async function deliverUntilAccepted(options: PurchaseFeedOptions, event: StripeEvent): Promise<{ attempts: number; accepted: boolean }> {
  const body = JSON.stringify(event);
  const deadline = Date.now() + DELIVERY_DEADLINE_MS;
  for (let attempt = 1; ; attempt++) {
    const status = await fetch(`${options.apiUrl}/api/v1/billing/stripe-webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': sign(body, { secret: options.webhookSecret }) },
      body,
      signal: AbortSignal.timeout(30_000),
    }).then(
      (res) => res.status,
      () => 0,
    );
    if (status >= 200 && status < 300) return { attempts: attempt, accepted: true };
    if (Date.now() > deadline) return { attempts: attempt, accepted: false };
    // A 400 here would be a signature refused: a bug, but still retried (Stripe would), and counted below.
    await sleep(Math.min(2_000 * attempt, 10_000));
  }
}

/**
 * Posts the deliveries one after another, `gapMs` apart (each retried until accepted, beside the
 * next ones), while `running()` says the faults go on; answers how many needed retries.
 */
export async function feedPurchases(
  options: PurchaseFeedOptions,
  deliveries: StripeEvent[],
  gapMs: number,
): Promise<{ retried: number; lost: number }> {
  const pending: Array<Promise<{ attempts: number; accepted: boolean }>> = [];
  for (const event of deliveries) {
    pending.push(deliverUntilAccepted(options, event));
    await sleep(gapMs);
  }
  const results = await Promise.all(pending);
  return { retried: results.filter((r) => r.attempts > 1).length, lost: results.filter((r) => !r.accepted).length };
}

/** Waits until every event's workflow has finished, then compares each buyer's balance and grants with what is due. */
export async function auditPurchases(options: PurchaseFeedOptions, buyers: Buyer[], deliveries: StripeEvent[]): Promise<string[]> {
  const mismatches: string[] = [];
  const ids = [...new Set(deliveries.map((e) => e.id))];
  for (const until = Date.now() + 5 * 60_000; ; ) {
    try {
      const connection = await Connection.connect({ ...temporalConnectOptions(options.temporal), connectTimeout: 5_000 });
      try {
        const client = new Client({ connection, namespace: options.temporal.namespace });
        await Promise.all(ids.map((id) => client.workflow.getHandle(`stripe-event-${id}`).result()));
      } finally {
        await connection.close();
      }
      break;
    } catch (err) {
      if (Date.now() > until) {
        mismatches.push(`purchases: not every Stripe event's workflow finished (${(err as Error).message})`);
        return mismatches;
      }
      await sleep(2_000);
    }
  }
  for (const buyer of buyers) {
    const expected = CREDITS - Math.floor((CREDITS * buyer.refunded) / AMOUNT);
    const account = await json(options.apiUrl, 'GET', '/api/v1/account', buyer.ownerToken);
    const grants = await json(options.apiUrl, 'GET', '/api/v1/account/grants', buyer.ownerToken);
    const purchases = await json(options.apiUrl, 'GET', '/api/v1/account/purchases', buyer.ownerToken);
    const grantCount = (grants.body?.items ?? []).length;
    const purchase = purchases.body?.items?.[0];
    if (account.body?.balance !== expected || grantCount !== 1 || purchase?.creditsVoided !== CREDITS - expected) {
      mismatches.push(
        `purchase of ${buyer.accountId}: balance ${account.body?.balance} (expected ${expected}), ${grantCount} grants (expected 1), ${purchase?.creditsVoided} credits voided (expected ${CREDITS - expected})`,
      );
    }
  }
  options.log(
    `purchases: ${buyers.length - mismatches.length} of ${buyers.length} buyers' balances exact after ${deliveries.length} deliveries of ${ids.length} events`,
  );
  return mismatches;
}
