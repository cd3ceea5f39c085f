//! What Stripe's events become inside the service, and the names the billing workflows share with
//! the API and the activities. Pure data, safe to import inside the workflow sandbox.

/**
 * The part of one of Stripe's signed events the service acts on (docs/API.md, "Formats and limits"): only the
 * fields it reads, so what enters workflow history is small and holds nothing of the customer (no
 * address, no e-mail, no card). `created`: the event's time in Unix seconds.
 */
export type StripeFact =
  | {
      kind: 'session';
      eventId: string;
      type: 'checkout.session.completed' | 'checkout.session.async_payment_succeeded' | 'checkout.session.async_payment_failed';
      created: number;
      sessionId: string;
      paymentStatus: string | null;
      paymentIntentId: string | null;
      customerId: string | null;
      /** The account the service put in the session (`client_reference_id`). */
      clientReferenceId: string | null;
    }
  | {
      kind: 'charge';
      eventId: string;
      type: 'charge.succeeded' | 'charge.refunded';
      created: number;
      paymentIntentId: string | null;
      amount: number;
      amountRefunded: number;
      receiptUrl: string | null;
    }
  | {
      kind: 'dispute';
      eventId: string;
      type: 'charge.dispute.created' | 'charge.dispute.updated' | 'charge.dispute.closed';
      created: number;
      disputeId: string;
      paymentIntentId: string | null;
      status: string;
    }
  | {
      kind: 'payment_intent';
      eventId: string;
      type: 'payment_intent.succeeded' | 'payment_intent.payment_failed';
      created: number;
      paymentIntentId: string;
      /** From the intent's metadata, which the service sets. */
      accountId: string | null;
      rechargeId: string | null;
      /** `last_payment_error.code` of a failed intent. */
      failureCode: string | null;
    };

/** What applying a fact did, kept as the workflow's result (readable in the Temporal UI). */
export interface StripeFactOutcome {
  /** `granted`, `voided`, `recorded`, `failed`, `unknown_session`, `not_ours`, `mismatch` (its payment intent and what it names disagree: logged), `ignored` ... */
  outcome: string;
  /** The account it concerned, once known: the workflow's `AccountId`. */
  accountId?: string;
  /** The recharge a payment intent's event settled (found by its intent, or by its metadata). */
  rechargeId?: string;
}

/** The workflow of one Stripe event: its id is the event's, so a redelivery starts nothing new. */
export const stripeEventWorkflowId = (eventId: string) => `stripe-event-${eventId}`;

/** An account's auto-recharge workflow: one per account, so two recharges can never run at once. */
export const autoRechargeWorkflowId = (accountId: string) => `auto-recharge-${accountId}`;

export interface AutoRechargeInput {
  accountId: string;
}

/** Signals of the auto-recharge workflow: a charge found the balance below the threshold; a recharge settled. */
export const AUTO_RECHARGE_SIGNALS = { due: 'due', settled: 'settled' } as const;

/** What beginning a recharge did (activities/core/billing.ts). */
export type RechargeStart =
  | { started: false; why: string }
  /** `settled`: already decided (a card Stripe refused at once); else its event is awaited. */
  | { started: true; rechargeId: string; settled: boolean };
