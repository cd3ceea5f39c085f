//! Which URLs an endpoint may be registered with: https to public addresses only, or localhost
//! where the service allows it (WEBHOOKS_ALLOW_LOCALHOST).
import { ServiceError } from '../../contracts/errors.js';
import type { TargetGuard } from '../../lib/target-guard.js';
import { isInputRefusal } from '../../lib/target-host.js';
import { isLocalhostUrl } from './transport.js';

export interface UrlAdmission {
  /** The service's target guard: a new URL must be https to a public address. */
  guard: TargetGuard;
  /** WEBHOOKS_ALLOW_LOCALHOST. */
  allowLocalhost: boolean;
}

/**
 * Checks a URL for registration and returns it normalised. `localhost` (any scheme) only when
 * allowed; anything else must be https and resolve to public addresses only (delivery checks
 * again on every attempt, so a later DNS change cannot reach inside either). A badly written URL
 * (not absolute, another scheme, credentials, bad port) is 400 `validation_failed`; a refused
 * address (private, loopback, metadata ... or localhost while not allowed) 422 `target_not_allowed`.
 */
export async function checkEndpointUrl(raw: string, deps: UrlAdmission): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badUrl('The url is not an absolute URL.', 'must be an absolute URL');
  }
  try {
    if (isLocalhostUrl(url)) {
      if (!deps.allowLocalhost) {
        throw new ServiceError(
          'target_not_allowed',
          'localhost webhook URLs are not allowed on this service; use an https URL with a public address.',
          { reason: 'loopback' },
        );
      }
      deps.guard.checkUrl(url, { schemes: ['http', 'https'] }); // scheme, credentials, port
      return url.href;
    }
    await deps.guard.resolveUrl(url, { schemes: ['https'] });
    return url.href;
  } catch (err) {
    // The URL itself is wrong (scheme, credentials, port): a validation failure of the body.
    // A refused address stays 422 `target_not_allowed`.
    if (isInputRefusal(err)) throw badUrl(err.message, err.message);
    throw err;
  }
}

function badUrl(detail: string, message: string): ServiceError {
  return new ServiceError('validation_failed', detail, { errors: [{ field: '/url', message }] });
}
