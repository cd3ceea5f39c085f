//! Checking that a request to the Stripe webhook is Stripe's: its `Stripe-Signature` verified on the
//! raw body with the official package (HMAC-SHA256 under STRIPE_WEBHOOK_SECRET, 300 s tolerance),
//! and refused when it was seen before: a replay within the tolerance. Stripe signs every delivery
//! afresh, so its own retries of an event always pass.
import type { Db } from 'mongodb';
import { collections, isDuplicateKey } from '../../lib/mongo.js';
import { sha256Hex } from '../../lib/ids.js';
import { ServiceError } from '../../contracts/errors.js';
import type { StripeApi } from './stripe-api.js';

/** How far a signature's time may be from the service's clock, as Stripe's libraries default to. */
export const SIGNATURE_TOLERANCE_S = 300;
/** Signatures are remembered this long: past it their time alone refuses them. */
export const SIGNATURE_MEMORY_MS = 2 * SIGNATURE_TOLERANCE_S * 1000;

/** Stripe expects a 400 for a signature it should not retry as it is; the code says why (ServiceErrorOptions.status). */
const refused = (detail: string) => new ServiceError('invalid_signature', detail, {}, { status: 400 });

/** The verified event: what the fulfilment reads from it (domain/billing/stripe-events.ts). */
export interface VerifiedEvent {
  id: string;
  type: string;
  created: number;
  data: { object: unknown };
}

export function createStripeSignatures(db: Db, stripe: StripeApi, webhookSecret: string) {
  const { stripeSignatures } = collections(db);

  /** The event, if `header` signs `raw` and was not seen before; else 400 invalid_signature. Nothing is kept of a refused one. */
  async function verify(raw: Buffer, header: string | undefined, now = Date.now()): Promise<VerifiedEvent> {
    if (!header) throw refused('A Stripe-Signature header is required.');
    let event: VerifiedEvent;
    try {
      event = stripe.webhooks.constructEvent(raw, header, webhookSecret, SIGNATURE_TOLERANCE_S) as unknown as VerifiedEvent;
    } catch {
      // The package's message may quote the header: say only what a sender needs.
      throw refused('The Stripe-Signature does not sign this body with the webhook secret, or is not within 300 s of now.');
    }
    const seen = signatureDigest(header);
    try {
      await stripeSignatures.insertOne({ _id: seen, at: new Date(now) });
    } catch (err) {
      if (isDuplicateKey(err)) throw refused('This Stripe-Signature was used before: a replay.');
      throw err;
    }
    return event;
  }

  /** Forgets a signature, so a request that failed after it was checked may be sent again as it was. */
  const forget = (header: string) => stripeSignatures.deleteOne({ _id: signatureDigest(header) });

  return { verify, forget };
}

/** What identifies a signature: its time and its `v1` values, whatever else the header carries. */
export function signatureDigest(header: string): string {
  const parts = header.split(',').map((p) => p.trim());
  const t = parts.find((p) => p.startsWith('t='))?.slice(2) ?? '';
  const v1 = parts
    .filter((p) => p.startsWith('v1='))
    .map((p) => p.slice(3))
    .sort();
  return sha256Hex(`${t}.${v1.join(',')}`);
}

export type StripeSignatures = ReturnType<typeof createStripeSignatures>;
