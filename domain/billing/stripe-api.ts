//! The official Stripe client as the service uses it: pointed at STRIPE_API_URL when set (stripe-mock
//! in tests), a few retries of its own (each request carries an idempotency key, so a retry never
//! pays twice), no telemetry. Also how a Stripe failure is told apart and logged without secrets.
import Stripe from 'stripe';
import type { StripeConfig } from '../../lib/config.js';

export type StripeApi = Stripe;

/** The package itself, for what else needs it (the tests sign Stripe's events with its own helper). */
export { Stripe };

/** How long one request to Stripe may take before it is given up (and retried by its caller). */
const REQUEST_TIMEOUT_MS = 20_000;

export function createStripeApi(config: StripeConfig): StripeApi {
  const url = config.apiUrl;
  return new Stripe(config.secretKey, {
    maxNetworkRetries: 2,
    timeout: REQUEST_TIMEOUT_MS,
    telemetry: false,
    ...(url
      ? {
          host: url.hostname,
          port: url.port || (url.protocol === 'https:' ? 443 : 80),
          protocol: url.protocol === 'https:' ? ('https' as const) : ('http' as const),
        }
      : {}),
  });
}

/** A card Stripe refused (declined, expired, needs its holder): final, not a failure to retry. */
export function cardError(err: unknown): { code: string; paymentIntentId: string | null } | null {
  if (!(err instanceof Stripe.errors.StripeCardError)) return null;
  const raw = err.raw as { payment_intent?: { id?: string } } | undefined;
  return { code: err.code ?? err.decline_code ?? 'card_declined', paymentIntentId: raw?.payment_intent?.id ?? null };
}

/**
 * What a log line may say of a Stripe failure: its kind, code, status and Stripe's request id.
 * Never the error itself, which carries the request it failed on.
 */
export function stripeFailure(err: unknown): Record<string, unknown> {
  if (err instanceof Stripe.errors.StripeError)
    return { type: err.type, code: err.code ?? null, statusCode: err.statusCode ?? null, stripeRequestId: err.requestId ?? null };
  return { type: err instanceof Error ? err.name : typeof err };
}
