//! Without Stripe's keys purchases are off and say so: the packs are still listed, checkout and
//! turning auto-recharge on are 409 payments_not_configured, Stripe's webhook takes nothing, and the
//! operator's grants work as before. The real app, on the stack's database and Temporal, configured
//! as `npm start` runs it without STRIPE_SECRET_KEY.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import { createApp } from '../../api/app.js';
import { loadConfig, temporalConnectOptions } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { createMetrics } from '../../lib/metrics.js';
import { isProblem, newAccount, request } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';
import { putPack, sign, stripeEvent, stripeId, WEBHOOK_PATH } from '../helpers/stripe.js';

const ADMIN = randomBytes(18).toString('base64url');
const PACK = `offline-${stripeId('x').slice(-6).toLowerCase()}`;
let server: Server;
let origin: string;
let mongo: MongoClient;
let connection: Connection;

test.before(async () => {
  const env = {
    MONGODB_URL: testEnv.mongodbUrl(),
    SECRET_KEY: randomBytes(32).toString('hex'),
    ADMIN_TOKEN: ADMIN,
    TEMPORAL_ADDRESS: testEnv.temporalAddress(),
  };
  const config = loadConfig(env);
  mongo = await MongoClient.connect(config.mongodbUrl);
  connection = await Connection.connect(temporalConnectOptions(config.temporal));
  const app = createApp({
    config,
    db: mongo.db(new URL(config.mongodbUrl).pathname.slice(1)),
    client: new Client({ connection }),
    log: createLogger({ name: 'payments-off', level: 'silent' }),
    metrics: createMetrics(),
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await putPack(PACK, { credits: 100, amount: 500 });
});

test.after.always(async () => {
  server?.close();
  await connection?.close();
  await mongo?.close();
});

test('without Stripe keys the packs are listed, purchases are 409 payments_not_configured, grants work', async (t) => {
  t.is(loadConfig({ MONGODB_URL: 'mongodb://x/y', SECRET_KEY: '0'.repeat(64) }).stripe, undefined);
  const account = await newAccount(0);
  const listed = await request('GET', '/api/v1/account/credit-packs', { token: account.ownerToken, baseUrl: origin });
  t.is(listed.status, 200);
  t.true(listed.body.some((p: { id: string }) => p.id === PACK));
  const bought = await request('POST', '/api/v1/account/checkout', { token: account.ownerToken, body: { packId: PACK }, baseUrl: origin });
  t.true(isProblem(bought, 409, 'payments_not_configured'));
  const recharge = await request('PUT', '/api/v1/account/auto-recharge', {
    token: account.ownerToken,
    body: { enabled: true, packId: PACK, threshold: 10, monthlyLimit: 1 },
    baseUrl: origin,
  });
  t.true(isProblem(recharge, 409, 'payments_not_configured'));
  const event = JSON.stringify(
    stripeEvent('checkout.session.completed', { id: stripeId('cs'), object: 'checkout.session', payment_status: 'paid' }),
  );
  const webhook = await request('POST', WEBHOOK_PATH, {
    rawBody: event,
    headers: { 'content-type': 'application/json', 'stripe-signature': sign(event) },
    baseUrl: origin,
  });
  t.true(isProblem(webhook, 409, 'payments_not_configured'));
  const granted = await request('POST', `/api/v1/admin/accounts/${account.id}/credits`, {
    token: ADMIN,
    body: { amount: 50, reason: 'purchase' },
    baseUrl: origin,
  });
  t.is(granted.status, 200);
  t.is(granted.body.balance, 50);
  t.is((await request('GET', '/api/v1/account/purchases', { token: account.ownerToken, baseUrl: origin })).body.items.length, 0);
});

test('Stripe keys are set together or not at all, and checked without being shown', (t) => {
  const base = { MONGODB_URL: 'mongodb://x/y', SECRET_KEY: '0'.repeat(64) };
  t.throws(() => loadConfig({ ...base, STRIPE_SECRET_KEY: 'sk_test_abc' }), { message: /set together/ });
  t.throws(() => loadConfig({ ...base, STRIPE_WEBHOOK_SECRET: 'whsec_abc' }), { message: /set together/ });
  const wrong = t.throws(() => loadConfig({ ...base, STRIPE_SECRET_KEY: 'pk_live_notsecret123', STRIPE_WEBHOOK_SECRET: 'whsec_abc' }));
  t.false(wrong!.message.includes('notsecret123'));
  t.throws(() => loadConfig({ ...base, STRIPE_API_URL: 'http://127.0.0.1:1' }), { message: /STRIPE_API_URL/ });
  const on = loadConfig({
    ...base,
    STRIPE_SECRET_KEY: 'sk_test_abc',
    STRIPE_WEBHOOK_SECRET: 'whsec_abc',
    STRIPE_API_URL: 'http://127.0.0.1:12111',
  });
  t.is(on.stripe?.apiUrl?.port, '12111');
});
