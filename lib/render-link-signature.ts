//! The signature of a render link (`GET /api/v1/render/{lksId}/{tool}?...&signature=<hex>`):
//! lowercase hex HMAC-SHA256, keyed with the link secret, of the path after `/api/v1/render/`,
//! `?`, and the query string exactly as sent up to `&signature=`, which must be the last
//! parameter (so nothing can be added after what was signed). client/render-link.ts signs the
//! same way with WebCrypto; the two are held together by test/api/render-links.test.ts.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const RENDER_PATH = '/api/v1/render/';
const SIGNATURE = /^[0-9a-f]{64}$/;

/** The text that is signed: `{lksId}/{tool}?{query up to &signature=}`. */
export function signedText(pathAfterRender: string, query: string): string {
  return `${pathAfterRender}?${query}`;
}

export function signRenderLink(secret: string, pathAfterRender: string, query: string): string {
  return createHmac('sha256', secret).update(signedText(pathAfterRender, query)).digest('hex');
}

/**
 * The raw query string split at its last parameter, which must be `signature=<64 lowercase hex>`;
 * undefined when there is none or anything else follows it.
 */
export function splitSignature(rawQuery: string): { query: string; signature: string } | undefined {
  const at = rawQuery.lastIndexOf('signature=');
  if (at < 0 || (at > 0 && rawQuery[at - 1] !== '&')) return undefined;
  const signature = rawQuery.slice(at + 'signature='.length);
  if (!SIGNATURE.test(signature)) return undefined;
  return { query: rawQuery.slice(0, Math.max(0, at - 1)), signature };
}

/** Whether `signature` signs the path and query with `secret` (in constant time). */
export function verifyRenderLink(secret: string, pathAfterRender: string, query: string, signature: string): boolean {
  const expected = Buffer.from(signRenderLink(secret, pathAfterRender, query), 'hex');
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A value of a link's query: what a tool's input holds that a query string can carry. */
export type QueryValue = string | number | boolean;

/**
 * A signed render link: `{baseUrl}/api/v1/render/{lksId}/{tool}?{input}[&expires=][&maxAge=]&signature=`.
 * Keys and values are percent-encoded with encodeURIComponent (a space is `%20`, never `+`).
 */
export function buildRenderLink(link: {
  baseUrl: string;
  secretId: string;
  secret: string;
  tool: string;
  input: Record<string, QueryValue>;
  /** Unix seconds after which the link answers 403 `link_expired`. */
  expires?: number;
  /** Seconds a stored render may be old for this link to be answered with it. */
  maxAge?: number;
}): string {
  const pairs = Object.entries(link.input).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  if (link.expires !== undefined) pairs.push(`expires=${link.expires}`);
  if (link.maxAge !== undefined) pairs.push(`maxAge=${link.maxAge}`);
  const path = `${encodeURIComponent(link.secretId)}/${encodeURIComponent(link.tool)}`;
  const query = pairs.join('&');
  return `${link.baseUrl.replace(/\/+$/, '')}${RENDER_PATH}${path}?${query}&signature=${signRenderLink(link.secret, path, query)}`;
}
