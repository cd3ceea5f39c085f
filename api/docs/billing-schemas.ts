//! Component schemas of the billing answers: credit packs, a checkout, purchases, auto-recharge.
import { AUTO_RECHARGE_LIMITS, Currency, MinorUnits, PACK_LIMITS, Purchase } from '../../domain/billing/index.js';
import { dateTime, id, nextCursor, record, ref, type JsonSchema } from './schema-parts.js';

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
  PurchasePage: record('Purchases, newest first.', { items: { type: 'array', items: ref('Purchase') }, nextCursor }),
  AutoRecharge: record('Automatic recharges and how they stand.', {
    enabled: { type: 'boolean' },
    packId: { type: ['string', 'null'], description: 'The pack each recharge buys.' },
    threshold: {
      type: ['integer', 'null'],
      minimum: 1,
      maximum: AUTO_RECHARGE_LIMITS.threshold,
      description: 'A charged call that takes the balance below this starts a recharge.',
    },
    monthlyLimit: {
      type: ['integer', 'null'],
      minimum: 1,
      maximum: AUTO_RECHARGE_LIMITS.monthlyLimit,
      description: 'Recharges a calendar month (UTC) may start.',
    },
    paymentMethod: {
      type: ['object', 'null'],
      description: 'The card saved at checkout (`saveCard: true`); null: none yet.',
      required: ['brand', 'last4'],
      properties: { brand: { type: 'string', examples: ['visa'] }, last4: { type: 'string', pattern: '^[0-9]{4}$', examples: ['4242'] } },
    },
    rechargesThisMonth: { type: 'integer', minimum: 0, description: 'Recharges started this calendar month (UTC), failed ones included.' },
    consecutiveFailures: { type: 'integer', minimum: 0, description: 'Failed recharges in a row; three turn auto-recharge off.' },
    disabledReason: { type: ['string', 'null'], description: 'Why the service turned it off (failures in a row); null otherwise.' },
    lastRecharge: {
      type: ['object', 'null'],
      description: 'The latest recharge; null before the first.',
      required: ['id', 'paymentIntentId', 'status', 'reason', 'credits', 'at'],
      properties: {
        id: id('rch', 'Recharge id.'),
        paymentIntentId: { type: ['string', 'null'], description: "Stripe's PaymentIntent." },
        status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
        reason: { type: ['string', 'null'], description: "A failure's reason (Stripe's code)." },
        credits: { type: 'integer', minimum: 1 },
        at: dateTime('When it settled (or started, while pending).'),
      },
    },
  }),
  StripeWebhookReceived: record('The event is recorded; it is applied once, whatever Stripe redelivers.', {
    received: { type: 'boolean', const: true },
  }),
};
