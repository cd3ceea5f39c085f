//! From one of Stripe's verified events to the fact the service acts on (contracts/billing-messages.ts):
//! the few fields docs/API.md says it reads, nothing else. Pure; null for event types it does not act on.
import type { StripeFact } from '../../contracts/billing-messages.js';

type Obj = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const int = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);
/** An expandable field: the id whether Stripe sent it as a string or as the object. */
const idOf = (v: unknown): string | null => str(v) ?? (v && typeof v === 'object' ? str((v as Obj).id) : null);

const SESSION_TYPES = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
] as const;
const CHARGE_TYPES = ['charge.succeeded', 'charge.refunded'] as const;
const DISPUTE_TYPES = ['charge.dispute.created', 'charge.dispute.updated', 'charge.dispute.closed'] as const;
const INTENT_TYPES = ['payment_intent.succeeded', 'payment_intent.payment_failed'] as const;

/** The event types the service acts on: what an operator subscribes its Stripe endpoint to (docs/OPERATING.md). */
export const STRIPE_EVENT_TYPES: readonly string[] = [...SESSION_TYPES, ...CHARGE_TYPES, ...DISPUTE_TYPES, ...INTENT_TYPES];

const isOneOf = <T extends string>(list: readonly T[], v: string): v is T => (list as readonly string[]).includes(v);

export function stripeFactOf(event: { id: string; type: string; created: number; data: { object: unknown } }): StripeFact | null {
  const o = (event.data?.object ?? {}) as Obj;
  const base = { eventId: event.id, created: int(event.created) };
  const type = event.type;
  if (isOneOf(SESSION_TYPES, type)) {
    const sessionId = str(o.id);
    if (!sessionId) return null;
    return {
      ...base,
      kind: 'session',
      type,
      sessionId,
      paymentStatus: str(o.payment_status),
      paymentIntentId: idOf(o.payment_intent),
      customerId: idOf(o.customer),
      clientReferenceId: str(o.client_reference_id),
    };
  }
  if (isOneOf(CHARGE_TYPES, type)) {
    return {
      ...base,
      kind: 'charge',
      type,
      paymentIntentId: idOf(o.payment_intent),
      amount: int(o.amount),
      amountRefunded: int(o.amount_refunded),
      receiptUrl: str(o.receipt_url),
    };
  }
  if (isOneOf(DISPUTE_TYPES, type)) {
    const disputeId = str(o.id);
    if (!disputeId) return null;
    return {
      ...base,
      kind: 'dispute',
      type,
      disputeId,
      paymentIntentId: idOf(o.payment_intent),
      status: str(o.status) ?? 'needs_response',
    };
  }
  if (isOneOf(INTENT_TYPES, type)) {
    const paymentIntentId = str(o.id);
    if (!paymentIntentId) return null;
    const metadata = (o.metadata ?? {}) as Obj;
    const error = (o.last_payment_error ?? {}) as Obj;
    return {
      ...base,
      kind: 'payment_intent',
      type,
      paymentIntentId,
      accountId: str(metadata.accountId),
      rechargeId: str(metadata.rechargeId),
      failureCode: str(error.code) ?? str(error.decline_code),
    };
  }
  return null;
}

/** A dispute's status that ends it: a closed one is never replaced by an open one, whatever the order events arrive in. */
export const isClosedDispute = (status: string) => status === 'won' || status === 'lost';
