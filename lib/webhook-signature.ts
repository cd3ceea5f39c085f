//! Webhook signatures: `X-Service-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`
//! keyed with the endpoint's signing secret. The service signs each attempt with it; receivers
//! check deliveries with `verifyWebhook` (constant-time compare, 300 s replay window).
//!
//! Rotation: while a rotated secret's overlap runs, `X-Service-Signature` stays signed with the
//! secret receivers already hold (the header's one value, so no receiver breaks), and
//! `X-Service-Signatures` lists the signature under every valid secret, newest first. A receiver
//! holding either secret finds its signature; `verifyWebhook` looks in both headers.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header names of a delivery (HTTP headers are case-insensitive; these are the sent spelling). */
export const WEBHOOK_HEADERS = {
  event: 'X-Service-Event',
  eventId: 'X-Service-Event-Id',
  timestamp: 'X-Service-Timestamp',
  signature: 'X-Service-Signature',
  /** Every valid signature, comma-separated, newest secret first: two during a rotation's overlap. */
  signatures: 'X-Service-Signatures',
} as const;

/** A delivery whose timestamp is this far from the receiver's clock, or further, is refused. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const SCHEME = 'sha256=';
/** A header listing more than this many signatures is not one the service sent. */
const MAX_SIGNATURES = 4;

/** `sha256=` + lowercase hex HMAC-SHA256 of `<timestamp>.<rawBody>` keyed with `secret`. */
export function computeSignature(secret: string, timestamp: string | number, rawBody: string | Buffer): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`);
  mac.update(rawBody);
  return SCHEME + mac.digest('hex');
}

/** Signs a body as of `now` (ms): the header values of one delivery attempt. */
export function signWebhook(secret: string, rawBody: string | Buffer, now = Date.now()): { timestamp: string; signature: string } {
  const timestamp = String(Math.floor(now / 1000));
  return { timestamp, signature: computeSignature(secret, timestamp, rawBody) };
}

/**
 * Signs one attempt with the endpoint's secrets: `signature` (the `X-Service-Signature` value)
 * under the previous secret while an overlap runs, else under the current one; `signatures`
 * under each, the current first.
 */
export function signDelivery(
  secrets: { current: string; previous?: string | null },
  rawBody: string | Buffer,
  now = Date.now(),
): { timestamp: string; signature: string; signatures: string } {
  const { timestamp, signature: current } = signWebhook(secrets.current, rawBody, now);
  if (!secrets.previous) return { timestamp, signature: current, signatures: current };
  const previous = computeSignature(secrets.previous, timestamp, rawBody);
  return { timestamp, signature: previous, signatures: `${current}, ${previous}` };
}

/** Headers as Node (`req.headers`), fetch (`Headers`) or a plain object hands them over. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === lower) return Array.isArray(v) ? v.join(', ') : v;
  }
  return undefined;
}

/** The signatures a delivery carries: `X-Service-Signature` and those listed in `X-Service-Signatures`. */
function signaturesOf(headers: HeaderSource): string[] {
  const listed = (header(headers, WEBHOOK_HEADERS.signatures) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .slice(0, MAX_SIGNATURES);
  const single = header(headers, WEBHOOK_HEADERS.signature)?.trim();
  return single ? [single, ...listed] : listed;
}

export type WebhookCheck =
  | { valid: true; timestamp: number }
  | { valid: false; reason: 'missing_headers' | 'malformed_timestamp' | 'timestamp_out_of_window' | 'signature_mismatch' };

/** `verifyWebhook` with the reason a delivery was refused, for receivers that log it. */
export function checkWebhook(
  secret: string | readonly string[],
  headers: HeaderSource,
  rawBody: string | Buffer,
  now = Date.now(),
): WebhookCheck {
  const timestamp = header(headers, WEBHOOK_HEADERS.timestamp)?.trim();
  const given = signaturesOf(headers);
  if (!timestamp || given.length === 0) return { valid: false, reason: 'missing_headers' };
  if (!/^\d{1,12}$/.test(timestamp)) return { valid: false, reason: 'malformed_timestamp' };
  const seconds = Number(timestamp);
  if (Math.abs(now / 1000 - seconds) >= SIGNATURE_TOLERANCE_SECONDS) return { valid: false, reason: 'timestamp_out_of_window' };
  let match = false;
  for (const s of typeof secret === 'string' ? [secret] : secret) {
    const expected = Buffer.from(computeSignature(s, timestamp, rawBody));
    for (const g of given) {
      const candidate = Buffer.from(g);
      // timingSafeEqual needs equal lengths; the expected length is public (always 71 bytes).
      // Every pair is compared, so the time taken does not tell which one matched.
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) match = true;
    }
  }
  return match ? { valid: true, timestamp: seconds } : { valid: false, reason: 'signature_mismatch' };
}

/**
 * True when a delivery is authentic and fresh: a signature it carries (`X-Service-Signature`, or
 * one listed in `X-Service-Signatures` during a secret rotation) matches the HMAC of
 * `<X-Service-Timestamp>.<rawBody>` under `secret` (or under any of several secrets, for a
 * receiver that holds both while it moves to a rotated one), compared in constant time, and the
 * timestamp is less than 300 s from `now` (ms). Pass the raw body exactly as received, before any
 * JSON parsing: re-serialised JSON does not verify.
 */
export function verifyWebhook(
  secret: string | readonly string[],
  headers: HeaderSource,
  rawBody: string | Buffer,
  now = Date.now(),
): boolean {
  return checkWebhook(secret, headers, rawBody, now).valid;
}
