//! A visual monitor's diff image as a signed, expiring link, as its runs answer it:
//! `GET /api/v1/monitor-diffs/{file}?expires=<unix s>&signature=<hex>`. The image is kept in the blob
//! store's area of diffs as long as its run (90 days); a link, made afresh each time the runs are
//! read, opens it for an hour without a credential (a dashboard's `<img>`, a chat message). Signed
//! as api/signed-file-links.ts says, with a key of its own.
import type { BlobStore } from '../lib/blob-store.js';
import { ServiceError } from '../contracts/errors.js';
import { createSignedLinks } from './signed-file-links.js';
import { MONITOR_DIFFS_AREA } from '../domain/monitors/index.js';

export const MONITOR_DIFFS_PATH = '/api/v1/monitor-diffs/';

/** How long a diff link opens its image. */
export const DIFF_LINK_TTL_S = 3_600;

/** A file's name in its link: base64url of the blob key. */
export const DIFF_FILE = /^[A-Za-z0-9_-]{8,256}$/;

export function createMonitorDiffLinks(deps: { baseUrl: string; secretKey: Buffer; blobs: BlobStore }) {
  const links = createSignedLinks(
    {
      label: 'monitor-diff-links',
      path: MONITOR_DIFFS_PATH,
      file: DIFF_FILE,
      ttlS: DIFF_LINK_TTL_S,
      noun: 'diff link',
      renew: "read the monitor's runs",
    },
    deps,
  );
  const diffs = deps.blobs.area(MONITOR_DIFFS_AREA);

  /** The link to the diff image under `diffKey`, open for an hour from `now`. */
  function linkTo(diffKey: string, now = Date.now()): string {
    return links.sign(Buffer.from(diffKey).toString('base64url'), now).url;
  }

  /** The image a link opens; refused when it is not one of ours, or expired. */
  async function open(file: string, rawQuery: string, now = Date.now()): Promise<{ png: Buffer; expiresAt: number }> {
    const expiresAt = links.verify(file, rawQuery, now);
    const png = await diffs.get(Buffer.from(file, 'base64url').toString('utf8'));
    if (!png) throw new ServiceError('not_found', 'The image is no longer kept (its run is past its 90 days).');
    return { png, expiresAt };
  }

  return { linkTo, open };
}

export type MonitorDiffLinks = ReturnType<typeof createMonitorDiffLinks>;
