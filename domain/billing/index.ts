//! Billing (domain/billing/): credit packs and their purchases through Stripe's checkout, the
//! fulfilment that grants them, refunds and disputes, and the automatic recharge.
export { AUTO_RECHARGE_LIMITS, AutoRechargeView, createAutoRecharge, type AutoRechargeInput } from './auto-recharge.js';
export { createCheckout } from './checkout.js';
export { createCustomers } from './customers.js';
export { createFulfilment } from './fulfilment.js';
export { Currency, MinorUnits, PACK_ID_PATTERN, PACK_LIMITS, createPacks, packView, type PackFields } from './packs.js';
export { Purchase, createPurchases, purchaseView } from './purchases.js';
export { createRechargeTrigger } from './recharge-trigger.js';
export { createRecharges } from './recharges.js';
export { createStripeApi, type StripeApi } from './stripe-api.js';
export { stripeFactOf } from './stripe-events.js';
export { SIGNATURE_MEMORY_MS, createStripeSignatures } from './stripe-signatures.js';
