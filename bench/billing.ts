//! `npm run bench:billing`: Stripe's webhook under a burst of signed events. 40 purchases, each
//! with five deliveries: its completion, the completion again (signed afresh, as Stripe
//! redelivers), its async success (another event paying the same session), a refund of a share of
//! it and that refund again: 200 deliveries, shuffled (a refund often arrives before the completion
//! it refunds), posted 16 at a time. Prints the time to Stripe's 200 (verify, record, start the
//! event's workflow) and how long until every event was applied, then checks every balance against
//! what the purchases and refunds call for: `credits - floor(credits x refunded / amount)`.
//! A throwaway stack with its own stripe-mock, unless API_URL and ADMIN_TOKEN name one whose
//! STRIPE_WEBHOOK_SECRET is set here too.
import { Client, Connection } from '@temporalio/client';
import { newAccount, request, type TestAccount } from '../test/helpers/api.js';
import { charge, checkout, deliver, putPack, session, stripeEvent, stripeId, type StripeEvent } from '../test/helpers/stripe.js';
import { measure, printTable } from './measure.js';
import { withBenchStack } from './stack.js';
import { temporalConnectOptions } from '../lib/config-temporal.js';

const PURCHASES = Number(process.env.BENCH_PURCHASES ?? 40);
const IN_FLIGHT = 16;
const CREDITS = 1000;
const AMOUNT = 1500;
const APPLY_WAIT_MS = 300_000;

interface Purchase {
  account: TestAccount;
  refunded: number;
}

/** A shuffle that is the same on every run (a seeded LCG): runs compare. */
function shuffled<T>(items: T[], seed = 68): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

await withBenchStack(
  async (stack) => {
    if (!stack.stripeWebhookSecret) throw new Error('the stack has no STRIPE_WEBHOOK_SECRET: payments are off');
    process.env.STRIPE_WEBHOOK_SECRET = stack.stripeWebhookSecret;
    const pack = `bench-${stripeId('x').slice(-6).toLowerCase()}`;
    await putPack(pack, { credits: CREDITS, amount: AMOUNT });

    console.log(`bench: ${PURCHASES} checkouts`);
    const purchases: Purchase[] = [];
    const deliveries: StripeEvent[] = [];
    for (let i = 0; i < PURCHASES; i++) {
      const account = await newAccount(0, `billing bench ${i}`);
      const { sessionId } = await checkout(account.ownerToken, pack);
      const pi = stripeId('pi');
      const refunded = (i % 5) * 150; // 0%, 10%, 20%, 30%, 40% of the price
      const completed = stripeEvent('checkout.session.completed', session({ id: sessionId, accountId: account.id, paymentIntentId: pi }));
      const asyncSucceeded = stripeEvent(
        'checkout.session.async_payment_succeeded',
        session({ id: sessionId, accountId: account.id, paymentIntentId: pi }),
      );
      const refund = stripeEvent('charge.refunded', charge({ paymentIntentId: pi, amount: AMOUNT, refunded }));
      deliveries.push(completed, completed, asyncSucceeded, refund, refund);
      purchases.push({ account, refunded });
    }
    const order = shuffled(deliveries);

    console.log(`bench: ${order.length} deliveries, ${IN_FLIGHT} in flight`);
    const statuses = new Map<number, number>();
    const started = performance.now();
    // Each delivery signed afresh, with its own timestamp: what Stripe does on a redelivery.
    const deliverOne = async (i: number) => {
      const res = await deliver(order[i]!, { secondsAgo: i % 250 });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status !== 200) throw new Error(`answered ${res.status}`);
    };
    const posted = await measure('signed event -> 200', deliverOne, { calls: order.length, concurrency: IN_FLIGHT, warmup: 0 });
    const postedMs = performance.now() - started;
    printTable("Stripe's webhook: time to 200", [posted]);
    console.log(`answers: ${[...statuses].map(([s, c]) => `${c} x ${s}`).join(', ')}`);

    // Every event applied: its workflow (one per event id) has finished.
    const connection = await Connection.connect(temporalConnectOptions(stack.temporal!));
    try {
      const client = new Client({ connection, namespace: stack.temporal!.namespace });
      const ids = [...new Set(order.map((e) => e.id))];
      await Promise.race([
        Promise.all(ids.map((id) => client.workflow.getHandle(`stripe-event-${id}`).result())),
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error(`not all applied within ${APPLY_WAIT_MS / 1000} s`)), APPLY_WAIT_MS).unref(),
        ),
      ]);
      console.log(
        `all ${ids.length} events applied ${((performance.now() - started) / 1000).toFixed(1)} s after the first delivery (posting took ${(postedMs / 1000).toFixed(1)} s)`,
      );
    } finally {
      await connection.close();
    }

    let mismatches = 0;
    for (const p of purchases) {
      const expected = CREDITS - Math.floor((CREDITS * p.refunded) / AMOUNT);
      const balance = (await request('GET', '/api/v1/account', { token: p.account.ownerToken })).body.balance as number;
      const grants = (await request('GET', '/api/v1/account/grants', { token: p.account.ownerToken })).body.items as unknown[];
      if (balance !== expected || grants.length !== 1) {
        mismatches++;
        console.error(`  ${p.account.id}: balance ${balance}, expected ${expected}; ${grants.length} grants`);
      }
    }
    console.log(`balances: ${purchases.length - mismatches} of ${purchases.length} exact, ${mismatches} mismatches`);
  },
  { stripe: true },
);
