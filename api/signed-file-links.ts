//! Signed, expiring links to a file the service keeps (an MCP call's file, a monitor's diff image):
//! `<path><file>?expires=<unix s>&signature=<hex>`. Each kind of link is signed with a key of its
//! own derived from SECRET_KEY (HMAC-SHA256 over the file and the query, as render links are), so
//! any replica verifies it and nothing else can make one. The link, not a credential, opens the file.
import { hkdfSync } from 'node:crypto';
import type { Context } from 'koa';
import { ServiceError } from '../contracts/errors.js';
import { signRenderLink, splitSignature, verifyRenderLink } from '../lib/render-link-signature.js';

export interface SignedLinkKind {
  /** The label its key is derived with. */
  label: string;
  /** Where its files are served, ending in `/`. */
  path: string;
  /** A file's name in its link. */
  file: RegExp;
  /** How long a link opens its file. */
  ttlS: number;
  /** What the refusal of a foreign link calls it: `result link`. */
  noun: string;
  /** What the refusal of an expired link tells to do for a new one. */
  renew: string;
}

export function createSignedLinks(kind: SignedLinkKind, deps: { baseUrl: string; secretKey: Buffer }) {
  const secret = Buffer.from(hkdfSync('sha256', deps.secretKey, Buffer.alloc(0), kind.label, 32)).toString('hex');

  /** The link to `file`, open for `ttlS` from `now`, and when it expires (Unix seconds). */
  function sign(file: string, now = Date.now()): { url: string; expires: number } {
    const expires = Math.floor(now / 1000) + kind.ttlS;
    const query = `expires=${expires}`;
    return { url: `${deps.baseUrl}${kind.path}${file}?${query}&signature=${signRenderLink(secret, file, query)}`, expires };
  }

  /** When a link to `file` with this query expires (ms); refused when it is not one of ours, or expired. */
  function verify(file: string, rawQuery: string, now = Date.now()): number {
    const signed = splitSignature(rawQuery);
    if (!signed || !kind.file.test(file) || !verifyRenderLink(secret, file, signed.query, signed.signature))
      throw new ServiceError('invalid_signature', `This is not a ${kind.noun} of this service, or it was changed.`);
    const expires = Number(/^expires=(\d{1,12})$/.exec(signed.query)?.[1]);
    if (!Number.isSafeInteger(expires)) throw new ServiceError('invalid_signature', 'The link has no expiry.');
    if (expires * 1000 <= now) {
      const expiredAt = new Date(expires * 1000).toISOString();
      throw new ServiceError('link_expired', `This link expired at ${expiredAt}: ${kind.renew} for a new one.`, { expiredAt });
    }
    return expires * 1000;
  }

  return { sign, verify };
}

/**
 * The headers of a file a signed link opens: cached privately until the link expires, and served
 * under a sandbox, as an attachment would be (a PDF's scripts run nowhere near this origin),
 * for an `<img>` or a download anywhere.
 */
export function setSignedFileHeaders(ctx: Context, expiresAt: number, now = Date.now()): void {
  ctx.set({
    'Cache-Control': `private, max-age=${Math.max(0, Math.floor((expiresAt - now) / 1000))}`,
    'Content-Security-Policy': "sandbox; default-src 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Resource-Policy': 'cross-origin',
  });
}
