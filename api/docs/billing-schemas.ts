//! Component schemas of the billing answers: credit packs, a checkout, purchases, auto-recharge.
import { AutoRechargeView, Currency, MinorUnits, PACK_LIMITS, Purchase } from '../../domain/billing/index.js';
import { page, dateTime, id, record, ref, type JsonSchema } from './schema-parts.js';

export const BILLING_SCHEMAS: Record<string, JsonSchema> = {
  CreditPack: record('A pack of credits for sale.', {
    id: { type: 'string', description: "The pack's id, chosen by the operator.", examples: ['starter'] },
    name: { type: 'string', examples: ['Starter: 1,000 credits'] },
    credits: { type: 'integer', minimum: 1, maximum: PACK_LIMITS.credits, description: 'Credits a purchase grants.' },
    price: record('What it costs.', { amount: MinorUnits("In the currency's minor unit (cents for usd)."), currency: Currency }),
    expiresInDays: {
      type: ['integer', 'null'],
      minimum: 1,
      description: 'What is left of a purchase lapses this many days after its payment; null: never.',
    },
    active: { type: 'boolean', description: 'For sale (accounts see only active packs).' },
    createdAt: dateTime('When it was first put.'),
    updatedAt: dateTime('When it was last changed.'),
  }),
  CreditPackList: { type: 'array', items: ref('CreditPack'), description: 'Packs, cheapest first.' },
  CheckoutSession: record('A Stripe Checkout Session for the pack: send the customer to `url`.', {
    sessionId: { type: 'string', description: "Stripe's Checkout Session id.", examples: ['cs_test_a1YS1URlnyQCN5fU'] },
    url: { type: ['string', 'null'], format: 'uri', description: "Stripe's hosted payment page." },
    purchaseId: id('pur', 'The purchase, pending until Stripe says it is paid.'),
  }),
  Purchase,
  PurchasePage: page('Purchases, newest first.', 'Purchase'),
  AutoRecharge: AutoRechargeView,
  StripeWebhookReceived: record('The event is recorded; it is applied once, whatever Stripe redelivers.', {
    received: { type: 'boolean', const: true },
  }),
};
