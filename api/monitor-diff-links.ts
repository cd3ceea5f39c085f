//! A visual monitor's diff image as a signed, expiring link, as its runs answer it:
//! `GET /api/v1/monitor-diffs/{file}?expires=<unix s>&signature=<hex>`. The image is kept in the blob
//! store's area of diffs as long as its run (90 days); a link, made afresh each time the runs are
//! read, opens it for an hour without a credential (a dashboard's `<img>`, a chat message). Signed
//! with a key derived from SECRET_KEY as result links are (api/mcp/result-links.ts), so any replica
//! verifies it and nothing else can make one.
import { hkdfSync } from 'node:crypto';
import type { BlobStore } from '../lib/blob-store.js';
import { ServiceError } from '../contracts/errors.js';
import { signRenderLink, splitSignature, verifyRenderLink } from '../lib/render-link-signature.js';
import { MONITOR_DIFFS_AREA } from '../domain/monitors/index.js';

export const MONITOR_DIFFS_PATH = '/api/v1/monitor-diffs/';

/** How long a diff link opens its image. */
export const DIFF_LINK_TTL_S = 3_600;

/** A file's name in its link: base64url of the blob key. */
const FILE = /^[A-Za-z0-9_-]{8,256}$/;

export function createMonitorDiffLinks(deps: { baseUrl: string; secretKey: Buffer; blobs: BlobStore }) {
  const secret = Buffer.from(hkdfSync('sha256', deps.secretKey, Buffer.alloc(0), 'monitor-diff-links', 32)).toString('hex');
  const diffs = deps.blobs.area(MONITOR_DIFFS_AREA);

  /** The link to the diff image under `diffKey`, open for an hour from `now`. */
  function linkTo(diffKey: string, now = Date.now()): string {
    const file = Buffer.from(diffKey).toString('base64url');
    const query = `expires=${Math.floor(now / 1000) + DIFF_LINK_TTL_S}`;
    return `${deps.baseUrl}${MONITOR_DIFFS_PATH}${file}?${query}&signature=${signRenderLink(secret, file, query)}`;
  }

  /** The image a link opens; refused when it is not one of ours, or expired. */
  async function open(file: string, rawQuery: string, now = Date.now()): Promise<{ png: Buffer; expiresAt: number }> {
    const signed = splitSignature(rawQuery);
    if (!signed || !FILE.test(file) || !verifyRenderLink(secret, file, signed.query, signed.signature))
      throw new ServiceError('invalid_signature', 'This is not a diff link of this service, or it was changed.');
    const expires = Number(/^expires=(\d{1,12})$/.exec(signed.query)?.[1]);
    if (!Number.isSafeInteger(expires)) throw new ServiceError('invalid_signature', 'The link has no expiry.');
    if (expires * 1000 <= now) {
      const expiredAt = new Date(expires * 1000).toISOString();
      throw new ServiceError('link_expired', `This link expired at ${expiredAt}: read the monitor's runs for a new one.`, { expiredAt });
    }
    const png = await diffs.get(Buffer.from(file, 'base64url').toString('utf8'));
    if (!png) throw new ServiceError('not_found', 'The image is no longer kept (its run is past its 90 days).');
    return { png, expiresAt: expires * 1000 };
  }

  return { linkTo, open };
}

export type MonitorDiffLinks = ReturnType<typeof createMonitorDiffLinks>;
