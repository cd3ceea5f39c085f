//! The billing routes' request bodies (api/routes/billing.ts): a credit pack, a checkout, the
//! automatic recharge; validation, OpenAPI and types in one.
import { type Static, Type } from '@sinclair/typebox';
import { AUTO_RECHARGE_LIMITS, PACK_ID_PATTERN, PACK_LIMITS } from '../../domain/billing/index.js';
import { ClosedObject, Nullable } from '../../lib/schema-types.js';

export const PutCreditPackBody = ClosedObject({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'What customers see at checkout and in their purchases.' }),
  credits: Type.Integer({ minimum: 1, maximum: PACK_LIMITS.credits, description: 'Credits a purchase of it grants.' }),
  price: ClosedObject({
    amount: Type.Integer({
      minimum: 1,
      maximum: PACK_LIMITS.amount,
      description: "In the currency's minor unit (cents for usd; yen for jpy).",
    }),
    currency: Type.String({ pattern: '^[a-z]{3}$', description: 'ISO 4217, lowercase (`usd`, `eur`).' }),
  }),
  expiresInDays: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: 1,
        maximum: PACK_LIMITS.expiresInDays,
        description: "What is left of a purchase's credits lapses this many days after its payment; null or left out: never.",
      }),
    ),
  ),
  active: Type.Optional(
    Type.Boolean({
      default: true,
      description: 'Listed to accounts and for sale; false withdraws it (purchases made keep their terms).',
    }),
  ),
});
export type PutCreditPackBody = Static<typeof PutCreditPackBody>;

export const CheckoutBody = ClosedObject({
  packId: Type.String({ pattern: PACK_ID_PATTERN, description: 'The pack to buy (GET /api/v1/account/credit-packs).' }),
  saveCard: Type.Optional(
    Type.Boolean({ default: false, description: 'Keep the card for automatic recharges (Stripe saves it for off-session payments).' }),
  ),
});
export type CheckoutBody = Static<typeof CheckoutBody>;

export const AutoRechargeBody = ClosedObject({
  enabled: Type.Boolean({ description: 'On needs a card saved at a checkout with `saveCard: true`.' }),
  packId: Type.String({ pattern: PACK_ID_PATTERN, description: 'The pack each recharge buys: one for sale.' }),
  threshold: Type.Integer({
    minimum: 1,
    maximum: AUTO_RECHARGE_LIMITS.threshold,
    description: `A charged call that takes the balance below this starts a recharge (1 to ${AUTO_RECHARGE_LIMITS.threshold.toLocaleString('en-US')}).`,
  }),
  monthlyLimit: Type.Integer({
    minimum: 1,
    maximum: AUTO_RECHARGE_LIMITS.monthlyLimit,
    description: `Recharges a calendar month (UTC) may start, failed ones included (1 to ${AUTO_RECHARGE_LIMITS.monthlyLimit}).`,
  }),
});
export type AutoRechargeBody = Static<typeof AutoRechargeBody>;
