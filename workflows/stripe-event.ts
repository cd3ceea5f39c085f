//! One per Stripe event (id `stripe-event-<event id>`): started by the webhook before Stripe is
//! answered, so a crash in between loses nothing, and a redelivery of the event finds it and starts
//! nothing new. Applies the event's fact (contracts/billing-messages.ts: only the fields it needs, never
//! the customer's details) until it is applied; then the account it concerned is its `AccountId`.
import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { BillingActivities } from '../activities/core/billing.js';
import type { StripeFact, StripeFactOutcome } from '../contracts/billing-messages.js';
import { SEARCH_ATTRIBUTES } from '../contracts/temporal-names.js';

/** Retried until the database and Stripe answer: an event Stripe was told is recorded must be applied. */
const { applyStripeEvent } = proxyActivities<BillingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

export async function stripeEvent(fact: StripeFact): Promise<StripeFactOutcome> {
  const outcome = await applyStripeEvent(fact);
  if (outcome.accountId) upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.accountId, value: outcome.accountId }]);
  return outcome;
}
