//! Billing on the dashboard: a pack bought from the page goes to Stripe Checkout (a stand-in page
//! here: stripe-mock's session url points at Stripe, which the test stack cannot reach), Stripe's
//! signed event pays it, and back on the page the purchase, its grant and the saved card show; a
//! refund shows what it took back; auto-recharge's settings are checked and saved from the page.
//! The buyer is a signed-up person: their session (the cookie) outlives the trip to Checkout.
import test from 'ava';
import { Client, type Connection } from '@temporalio/client';
import { client, serviceOrigin, signUp } from '../helpers/people.js';
import { testEnv } from '../helpers/env.js';
import { withServiceDb } from '../helpers/db.js';
import { applied, charge, deliver, putPack, session, stripeEvent, stripeId } from '../helpers/stripe.js';
import { browserForFile } from './browser-for-file.js';
import { focused, openSignedIn, refresh, screenshot, textOf, waitForText, waitForView } from './page.js';
import { connectTemporal } from '../helpers/temporal.js';

const PACK = `dash-${stripeId('x').slice(-6).toLowerCase()}`;
const browser = browserForFile();
let connection: Connection;

test.before(async () => {
  await putPack(PACK, { name: 'Dashboard pack', credits: 1000, amount: 1500, expiresInDays: 365 });
  connection = await connectTemporal();
});
test.after.always(async () => {
  await connection?.close();
});

test.serial('buy a pack through Checkout, see it paid with its grant and card, then refunded in part; set auto-recharge', async (t) => {
  const temporal = new Client({ connection, namespace: testEnv.temporalNamespace() });
  const c = client();
  const person = await signUp(c, { name: 'Billing & Co' });
  const account = { id: person.accountId };
  const request = (method: string, path: string) => c.request(method, path, { cookie: person.cookie });
  const { page, problems, close } = await openSignedIn(browser(), person, 'billing');
  try {
    const row = await waitForText(page, `#packs-body tr[data-pack-id="${PACK}"]`, /Dashboard pack/);
    t.regex(row, /1,000/);
    t.regex(row, /\$15\.00/);
    t.regex(row, /Credits last 365 days/);
    t.regex(await textOf(page, '#purchases-body'), /No purchases yet/);
    t.regex(await textOf(page, '#recharge-card'), /None saved/);

    // Buy: the page goes to Stripe's hosted page (answered here by a stand-in).
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      if (req.url().startsWith('https://checkout.stripe.com/'))
        void req.respond({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Stripe Checkout</title><p>Stand-in</p>' });
      else void req.continue();
    });
    await page.click('#save-card');
    await Promise.all([page.waitForNavigation(), page.click(`#packs-body tr[data-pack-id="${PACK}"] button`)]);
    t.regex(page.url(), /^https:\/\/checkout\.stripe\.com\//);
    const [pending] = (await request('GET', '/api/v1/account/purchases')).body.items;
    t.like(pending, { packId: PACK, status: 'pending', credits: 1000 });
    const stored = await withServiceDb((db) => db.collection('purchases').findOne({ _id: pending.id }));
    t.regex(stored!.sessionId as string, /^cs_test_/);

    // Stripe's event pays it; Stripe sends the customer back to the Billing page.
    const pi = stripeId('pi');
    const completed = stripeEvent(
      'checkout.session.completed',
      session({ id: stored!.sessionId as string, accountId: account.id, paymentIntentId: pi }),
    );
    t.is((await deliver(completed)).status, 200);
    await applied(temporal, completed.id);
    await page.goto(`${serviceOrigin()}/dashboard/billing?checkout=success`, { waitUntil: 'networkidle0' });
    await waitForView(page, 'billing');
    t.regex(await textOf(page, '#checkout-notice'), /payment is being confirmed/);
    const paid = await waitForText(page, `#purchases-body tr[data-purchase-id="${pending.id}"]`, /Paid/);
    t.regex(paid, /Dashboard pack/);
    t.regex(paid, /\$15\.00/);
    t.regex(await textOf(page, '#billing-grants-body'), /Purchase\s+1,000\s+1,000/);
    t.regex(await textOf(page, '#recharge-card'), /visa •••• 4242/);

    // A refund of a fifth: 200 credits taken back.
    const refund = stripeEvent('charge.refunded', charge({ paymentIntentId: pi, amount: 1500, refunded: 300 }));
    t.is((await deliver(refund)).status, 200);
    await applied(temporal, refund.id);
    await refresh(page);
    const refunded = await waitForText(page, `#purchases-body tr[data-purchase-id="${pending.id}"]`, /Partly refunded/);
    t.regex(refunded, /200/);
    t.regex(refunded, /Receipt/);
    t.regex(await textOf(page, '#billing-grants-body'), /Purchase\s+1,000\s+800\s+200/);
    await screenshot(page, 'billing-after-purchase-and-refund');

    // Auto-recharge: a threshold out of bounds is named on its field; then it is saved.
    await page.click('#recharge-enabled');
    // Other files add packs of their own as this one runs: choose this test's by its id.
    await page.select('#recharge-pack', PACK);
    await page.locator('#recharge-threshold').fill('0');
    await page.locator('#recharge-limit').fill('2');
    await page.click('#recharge-form button[type=submit]');
    await waitForText(page, '#recharge-error', /threshold/);
    t.is(await page.$eval('#recharge-threshold', (el) => el.getAttribute('aria-invalid')), 'true');
    t.is((await focused(page)).id, 'recharge-threshold');
    await page.locator('#recharge-threshold').fill('100');
    await page.click('#recharge-form button[type=submit]');
    await waitForText(page, '#announcer', /Auto-recharge is on/);
    const settings = (await request('GET', '/api/v1/account/auto-recharge')).body;
    t.like(settings, { enabled: true, packId: PACK, threshold: 100, monthlyLimit: 2, paymentMethod: { brand: 'visa', last4: '4242' } });
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});
