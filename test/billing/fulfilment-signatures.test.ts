//! Stripe's webhook kept to Stripe: forged, stale, tampered, unsigned and replayed deliveries
//! refused and granting nothing, and Stripe's own keys in no log, history or collection.
import test from 'ava';
import { isProblem, request } from '../helpers/api.js';
import { placesHolding } from '../helpers/secrets.js';
import { historyText } from '../helpers/temporal.js';
import { applied, deliver, sign, WEBHOOK_PATH } from '../helpers/stripe.js';
import { apply, balance, buyer, CREDITS, purchases, temporal } from './support/fulfilment.js';

test('forged, stale, tampered, unsigned and replayed deliveries are 400 invalid_signature and grant nothing', async (t) => {
  const { account, sessionEvent } = await buyer();
  const completed = sessionEvent('checkout.session.completed');
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

test("Stripe's secret key and webhook secret are in no log of the stack, no purchase's workflow history and no collection", async (t) => {
  const secrets = [process.env.STRIPE_SECRET_KEY, process.env.STRIPE_WEBHOOK_SECRET];
  if (secrets.some((s) => !s)) throw new Error('the stack gave no STRIPE_SECRET_KEY or STRIPE_WEBHOOK_SECRET: run through `npm test`');
  // A purchase end to end: the checkout (the key reaches stripe-mock), its signed completion and a refund.
  const { account, sessionEvent, refundEvent } = await buyer();
  const completed = sessionEvent('checkout.session.completed');
  const refund = refundEvent(100);
  for (const event of [completed, refund]) await apply(event);
  t.is(await balance(account), CREDITS - 2, 'floor(20 x 100 / 1000) = 2 taken back');

  for (const event of [completed, refund]) {
    const history = historyText(await temporal.workflow.getHandle(`stripe-event-${event.id}`).fetchHistory());
    for (const secret of secrets) t.false(history.includes(secret!), `the history of ${event.id} holds a Stripe secret`);
  }
  t.deepEqual(await placesHolding(secrets as string[]), [], 'no log and no collection');
});
