//! The account's Stripe customer, made once and reused by every checkout (so its saved card and its
//! receipts stay together), and the card saved at a checkout for auto-recharge.
import type { Db } from 'mongodb';
import { collections, isDuplicateKey } from '../../lib/mongo.js';
import type { BillingAccountDoc } from './documents.js';
import type { StripeApi } from './stripe-api.js';

export function createCustomers(db: Db, stripe: StripeApi) {
  const { billingAccounts, accounts } = collections(db);

  /**
   * The account's customer id, made when it has none. Two checkouts at once both ask Stripe with
   * the same idempotency key (Stripe answers the second with the first's customer for 24 hours),
   * and only one id is ever recorded: the update is guarded by its absence, and whoever loses the
   * race reads the winner's. A customer made and then lost in that race is never used.
   */
  async function ensure(accountId: string): Promise<string> {
    const known = await billingAccounts.findOne({ _id: accountId }, { projection: { stripeCustomerId: 1 } });
    if (known?.stripeCustomerId) return known.stripeCustomerId;
    const account = await accounts.findOne({ _id: accountId }, { projection: { email: 1, name: 1 } });
    const customer = await stripe.customers.create(
      { metadata: { accountId }, ...(account?.email ? { email: account.email } : {}), ...(account?.name ? { name: account.name } : {}) },
      { idempotencyKey: `customer-${accountId}` },
    );
    try {
      await billingAccounts.updateOne(
        { _id: accountId, stripeCustomerId: { $exists: false } },
        { $set: { stripeCustomerId: customer.id } },
        { upsert: true },
      );
    } catch (err) {
      if (!isDuplicateKey(err)) throw err; // another request recorded one first
    }
    const stored = await billingAccounts.findOne({ _id: accountId }, { projection: { stripeCustomerId: 1 } });
    return stored!.stripeCustomerId!;
  }

  /**
   * Keeps the card a paid checkout with saveCard paid with: the payment intent's payment method
   * when Stripe says which, else the customer's newest card (Stripe lists newest first).
   */
  async function saveCard(
    accountId: string,
    customerId: string,
    paymentIntentId: string | null,
  ): Promise<BillingAccountDoc['paymentMethod']> {
    let card: { id: string; brand: string; last4: string } | null = null;
    if (paymentIntentId) {
      const intent = await stripe.paymentIntents.retrieve(paymentIntentId, { expand: ['payment_method'] });
      const pm = intent.payment_method;
      if (pm && typeof pm === 'object' && pm.card) card = { id: pm.id, brand: pm.card.brand, last4: pm.card.last4 };
    }
    if (!card) {
      const cards = await stripe.paymentMethods.list({ customer: customerId, type: 'card', limit: 1 });
      const pm = cards.data[0];
      if (pm?.card) card = { id: pm.id, brand: pm.card.brand, last4: pm.card.last4 };
    }
    if (card) await billingAccounts.updateOne({ _id: accountId }, { $set: { paymentMethod: card } }, { upsert: true });
    return card;
  }

  return { ensure, saveCard, get: (accountId: string) => billingAccounts.findOne({ _id: accountId }) };
}

export type Customers = ReturnType<typeof createCustomers>;
