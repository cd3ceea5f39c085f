//! Checks one link for broken-links: HEAD first (no body travels), GET when the HEAD answer or
//! failure suggests the server mishandles HEAD. Every request, and every redirect hop, goes
//! through the guarded client, so a link to a private address is a broken link with a reason,
//! never a request to that address.
import type { LinkCheck } from '../../domain/tools/broken-links.js';
import { type ToolError, ServiceError } from '../../contracts/errors.js';
import type { GuardedHttp } from '../../lib/guarded-http.js';

export type LinkChecker = (url: string, signal: AbortSignal) => Promise<LinkCheck>;

export interface LinkCheckOptions {
  /** Time for one link, HEAD and GET together, milliseconds. @default 6000 */
  timeoutMs?: number;
  /** Redirects followed per request, each re-checked by the guard. @default 5 */
  maxRedirects?: number;
}

export const LINK_TIMEOUT_MS = 6_000;
export const LINK_MAX_REDIRECTS = 5;
/** Below this much time left, a GET retry could not finish: the HEAD outcome stands. */
const MIN_RETRY_MS = 250;
/** Client failures after which a GET may still succeed: servers that drop or garble HEAD. */
const RETRY_WITH_GET = new Set(['connection_reset', 'protocol']);

type Attempt = { ok: true; statusCode: number; finalUrl: string } | { ok: false; error: ToolError };

/** The outcome of one attempt as a report; a status of 400 or more is broken. */
export function describeAttempt(url: string, method: LinkCheck['method'], attempt: Attempt, elapsedMs: number): LinkCheck {
  if (attempt.ok) {
    const broken = attempt.statusCode >= 400;
    return {
      statusCode: attempt.statusCode,
      broken,
      reason: broken ? 'http_status' : null,
      detail: broken ? `The link answered ${attempt.statusCode}.` : null,
      finalUrl: attempt.finalUrl,
      method,
      elapsedMs,
    };
  }
  const reason = typeof attempt.error.extras.reason === 'string' ? attempt.error.extras.reason : attempt.error.code;
  return { statusCode: null, broken: true, reason, detail: attempt.error.message, finalUrl: url, method, elapsedMs };
}

/** Whether a GET is worth trying after this HEAD outcome. */
export function shouldRetryWithGet(attempt: Attempt): boolean {
  if (attempt.ok) return attempt.statusCode >= 400; // 405, 501 and servers that answer HEAD with 403 or 404
  return attempt.error.code === 'upstream_error' && RETRY_WITH_GET.has(String(attempt.error.extras.reason));
}

export function createLinkChecker(http: Pick<GuardedHttp, 'request'>, options: LinkCheckOptions = {}): LinkChecker {
  const budgetMs = options.timeoutMs ?? LINK_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? LINK_MAX_REDIRECTS;

  async function attempt(url: string, method: LinkCheck['method'], timeoutMs: number, signal: AbortSignal): Promise<Attempt> {
    try {
      // One byte is enough to know the GET was answered; leaving early closes the socket.
      const res = await http.request({ url, method, timeoutMs, maxRedirects, maxBytes: 1, signal });
      return { ok: true, statusCode: res.statusCode, finalUrl: res.finalUrl };
    } catch (err) {
      if (err instanceof ServiceError) return { ok: false, error: err };
      throw err; // the call was cancelled, or a bug: not a verdict on the link
    }
  }

  return async (url, signal) => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const head = await attempt(url, 'HEAD', budgetMs, signal);
    const left = budgetMs - (performance.now() - started);
    if (!shouldRetryWithGet(head) || left < MIN_RETRY_MS) return describeAttempt(url, 'HEAD', head, elapsed());
    const get = await attempt(url, 'GET', left, signal);
    return describeAttempt(url, 'GET', get, elapsed());
  };
}
