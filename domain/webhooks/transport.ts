//! How one delivery attempt reaches a receiver: a POST through the guarded HTTP client (checked,
//! pinned address; no redirects; 10 s for the whole exchange). `localhost` URLs, when the
//! operator allows them (WEBHOOKS_ALLOW_LOCALHOST), go through a second guard whose allowlist is
//! exactly the loopback range; every other URL must be https to a public address.
import { createGuardedHttp, type GuardedHttp } from '../../lib/guarded-http.js';
import { createTargetGuard, type TargetGuard } from '../../lib/target-guard.js';
import { isLocalhostName } from '../../lib/target-host.js';
import type { DnsResolver } from '../../lib/resolver.js';

/** The receiver's whole answer must come within this (docs/WEBHOOKS.md: any 2xx within 10 s). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
export const WEBHOOK_USER_AGENT = 'UtilityTools-Webhooks/1.0';
/** The response body is not used; reading a little keeps a chatty receiver from costing memory. */
const MAX_RESPONSE_BYTES = 16 * 1024;
const LOOPBACK = ['127.0.0.0/8', '[::1]/128'];

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Posts one attempt and returns the receiver's status. Throws `ServiceError` (`target_not_allowed`,
 * `upstream_error` with a client-safe message) when no response came.
 */
export type WebhookPoster = (request: WebhookRequest) => Promise<{ statusCode: number }>;

export interface WebhookPosterOptions {
  /** The service's target guard (TARGET_ALLOWLIST, DNS_SERVERS): every non-localhost URL goes through it. */
  guard: TargetGuard;
  /** Resolver for the loopback guard (it never asks DNS for `localhost`, but the guard needs one). */
  resolver: Pick<DnsResolver, 'lookup'>;
  /** WEBHOOKS_ALLOW_LOCALHOST: deliver `localhost` URLs to loopback. */
  allowLocalhost: boolean;
  /** @default 10000 (the contract's wait). */
  timeoutMs?: number;
}

export function isLocalhostUrl(url: string | URL): boolean {
  try {
    return isLocalhostName(new URL(String(url)).hostname.toLowerCase().replace(/\.$/, ''));
  } catch {
    return false;
  }
}

export function createWebhookPoster(options: WebhookPosterOptions): WebhookPoster {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const publicHttp = createGuardedHttp({ guard: options.guard, userAgent: WEBHOOK_USER_AGENT });
  const loopbackHttp: GuardedHttp | undefined = options.allowLocalhost
    ? createGuardedHttp({ guard: createTargetGuard({ allowlist: LOOPBACK, resolver: options.resolver }), userAgent: WEBHOOK_USER_AGENT })
    : undefined;

  return async ({ url, headers, body }) => {
    const local = loopbackHttp !== undefined && isLocalhostUrl(url);
    const res = await (local ? loopbackHttp : publicHttp).request({
      url,
      method: 'POST',
      headers,
      body,
      timeoutMs,
      maxRedirects: 0, // a 3xx is the receiver's answer, and a failure
      maxBytes: MAX_RESPONSE_BYTES,
      schemes: local ? ['http', 'https'] : ['https'],
    });
    return { statusCode: res.statusCode };
  };
}
