//! Webhook signatures: `X-Service-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`
//! keyed with the endpoint's signing secret. The service signs each attempt with it; receivers
//! check deliveries with `verifyWebhook` (constant-time compare, 300 s replay window).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header names of a delivery (HTTP headers are case-insensitive; these are the sent spelling). */
export const WEBHOOK_HEADERS = {
  event: 'X-Service-Event',
  eventId: 'X-Service-Event-Id',
  timestamp: 'X-Service-Timestamp',
  signature: 'X-Service-Signature',
} as const;

/** A delivery whose timestamp is this far from the receiver's clock, or further, is refused. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const SCHEME = 'sha256=';

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

/** Headers as Node (`req.headers`), fetch (`Headers`) or a plain object hands them over. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === lower) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}

export type WebhookCheck =
  | { valid: true; timestamp: number }
  | { valid: false; reason: 'missing_headers' | 'malformed_timestamp' | 'timestamp_out_of_window' | 'signature_mismatch' };

/** `verifyWebhook` with the reason a delivery was refused, for receivers that log it. */
export function checkWebhook(secret: string, headers: HeaderSource, rawBody: string | Buffer, now = Date.now()): WebhookCheck {
  const timestamp = header(headers, WEBHOOK_HEADERS.timestamp)?.trim();
  const signature = header(headers, WEBHOOK_HEADERS.signature)?.trim();
  if (!timestamp || !signature) return { valid: false, reason: 'missing_headers' };
  if (!/^\d{1,12}$/.test(timestamp)) return { valid: false, reason: 'malformed_timestamp' };
  const seconds = Number(timestamp);
  if (Math.abs(now / 1000 - seconds) >= SIGNATURE_TOLERANCE_SECONDS) return { valid: false, reason: 'timestamp_out_of_window' };
  const expected = Buffer.from(computeSignature(secret, timestamp, rawBody));
  const given = Buffer.from(signature);
  // timingSafeEqual needs equal lengths; the expected length is public (always 71 bytes).
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { valid: false, reason: 'signature_mismatch' };
  return { valid: true, timestamp: seconds };
}

/**
 * True when a delivery is authentic and fresh: the signature header matches the HMAC of
 * `<X-Service-Timestamp>.<rawBody>` under `secret` (compared in constant time) and the timestamp
 * is less than 300 s from `now` (ms). Pass the raw body exactly as received, before any JSON
 * parsing: re-serialised JSON does not verify.
 */
export function verifyWebhook(secret: string, headers: HeaderSource, rawBody: string | Buffer, now = Date.now()): boolean {
  return checkWebhook(secret, headers, rawBody, now).valid;
}
