//! The request's `Cache-Control` on a `POST` of a capture tool: how old a stored render it accepts.
import { MAX_RENDER_AGE_S } from '../domain/render-cache.js';
import { ServiceError } from '../contracts/errors.js';

/**
 * Seconds of age the request accepts: `max-age=N` (at most 30 days), `no-cache` 0 (a fresh
 * render, which is stored); undefined when the header says neither (or `no-store`), and the call
 * takes the ordinary path without the cache. Other directives are ignored, as HTTP wants.
 */
export function acceptedRenderAge(header: string | undefined): number | undefined {
  if (!header) return undefined;
  const directives = header.split(',').map((d) => d.trim().toLowerCase());
  if (directives.includes('no-store')) return undefined;
  if (directives.includes('no-cache')) return 0;
  const maxAge = directives.find((d) => d.startsWith('max-age'));
  if (maxAge === undefined) return undefined;
  const m = /^max-age=(?:(\d{1,12})|"(\d{1,12})")$/.exec(maxAge);
  if (!m) {
    throw new ServiceError('validation_failed', 'Cache-Control max-age must be a whole number of seconds.', {
      errors: [{ field: 'header:Cache-Control', message: 'max-age must be a whole number of seconds' }],
    });
  }
  return Math.min(Number(m[1] ?? m[2]), MAX_RENDER_AGE_S);
}
