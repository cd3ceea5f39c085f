//! Loading a checked address into a page and explaining a failure in the contract's terms: a
//! redirect to a private address is `target_not_allowed`, an unreachable site `upstream_error`.
//! The proxy session knows why it did not carry a request; Chromium only says `net::ERR_...`.
//! A load Chromium aborted because the host's network changed is made once more.
import type { HTTPResponse, Page } from 'puppeteer-core';
import { ToolError } from '../../contracts/errors.js';
import { PROXY_ANSWER_HEADER, type ProxySession } from './filtering-proxy.js';
import { inSpan } from '../../lib/trace-context.js';

/** `net::ERR_NAME` from a Chromium navigation error message, if it carries one. */
export function netErrorCode(err: unknown): string | undefined {
  const message = err instanceof Error ? err.message : String(err);
  return /\bnet::(ERR_[A-Z0-9_]+)/.exec(message)?.[1];
}

/**
 * The one network error a navigation is made again for: Chromium aborts what it has under way
 * when an address of the host comes or goes (a VPN, Wi-Fi, a container bridge coming up), and
 * treats it as passing (its error page reloads itself for it). It says nothing of the site.
 */
export const TRANSIENT_NET_ERROR = 'ERR_NETWORK_CHANGED';

/** Whether a failed navigation is made again: for TRANSIENT_NET_ERROR only, while the call's deadline (`signal`) has not passed. */
export function retriesNavigation(err: unknown, signal?: AbortSignal): boolean {
  return netErrorCode(err) === TRANSIENT_NET_ERROR && !signal?.aborted;
}

/**
 * Runs `load`, and once more when it fails as retriesNavigation allows (never a third time);
 * `beforeRetry` runs between the two with the error's code.
 */
export async function onceMoreIfNetworkChanged<T>(
  load: () => Promise<T>,
  beforeRetry: (code: string) => void,
  signal?: AbortSignal,
): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (!retriesNavigation(err, signal)) throw err;
    beforeRetry(TRANSIENT_NET_ERROR);
    return load();
  }
}

function hostAndPort(url: string): { host: string; port: number } | undefined {
  try {
    const u = new URL(url);
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : u.protocol === 'http:' ? 80 : undefined;
    return port === undefined ? undefined : { host: u.hostname.replace(/^\[|\]$/g, ''), port };
  } catch {
    return undefined;
  }
}

/** A redirect's refusal says so; the first address was checked before the page opened. */
function asRedirect(err: ToolError, redirected: boolean): ToolError {
  if (!redirected || err.message.startsWith('Redirect refused')) return err;
  return new ToolError(err.code, `Redirect refused: ${err.message}`, err.extras, { cause: err.cause });
}

/** The error for a navigation Chromium gave up on, as the contract names it. */
export function navigationError(err: unknown, failedUrl: string, startUrl: string, session: Pick<ProxySession, 'errorFor'>): unknown {
  const code = netErrorCode(err);
  if (!code) return err; // not a network failure (a crash, an abort): the pool and the platform handle those
  const where = hostAndPort(failedUrl);
  const known = where && session.errorFor(where.host, where.port);
  if (known) return asRedirect(known, failedUrl !== startUrl);
  const host = where?.host ?? 'the site';
  switch (code) {
    case 'ERR_UNSAFE_REDIRECT':
    case 'ERR_INVALID_REDIRECT':
      return new ToolError('target_not_allowed', 'Redirect refused: the page redirected to an address that is not http or https', {
        reason: 'scheme',
      });
    case 'ERR_TOO_MANY_REDIRECTS':
      return new ToolError('upstream_error', `Too many redirects from ${host}`, { reason: 'too_many_redirects' });
    case 'ERR_ABORTED':
      return new ToolError(
        'upstream_error',
        `${host} answered with something that is not a page to render (a download, or a navigation the page cancelled)`,
        { reason: 'not_a_page' },
      );
    default:
      if (/^ERR_(SSL|CERT)_/.test(code))
        return new ToolError('upstream_error', `TLS with ${host} failed (${code})`, { reason: 'tls', tlsError: code });
      return new ToolError('upstream_error', `Could not load the page from ${host} (${code})`, { reason: 'network', netError: code });
  }
}

/**
 * The main document's response, unless the proxy answered in the site's place: then the error
 * it answered for (a refused redirect, an unreachable host).
 */
export function checkMainResponse(response: HTTPResponse | null, startUrl: string, session: Pick<ProxySession, 'errorFor'>): void {
  const proxyCode = response?.headers()[PROXY_ANSWER_HEADER];
  if (!response || !proxyCode) return;
  const where = hostAndPort(response.url());
  const known = where && session.errorFor(where.host, where.port);
  if (known) throw asRedirect(known, response.url() !== startUrl);
  if (proxyCode === 'ad_host') {
    throw new ToolError(
      'upstream_error',
      `The page redirected to ${where?.host ?? 'a host'}, a known ad or tracker host; call again with blockAds false to follow it`,
      { reason: 'ad_host' },
    );
  }
  throw new ToolError('upstream_error', `Could not load the page from ${where?.host ?? 'the site'}`, { reason: 'network' });
}

/** The URL of the main frame's latest navigation request, redirects included. */
export function followMainFrame(page: Page, startUrl: string): { readonly lastUrl: string; stop(): void } {
  let lastUrl = startUrl;
  const onRequest = (request: { isNavigationRequest(): boolean; frame(): unknown; url(): string }) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) lastUrl = request.url();
  };
  page.on('request', onRequest);
  return {
    get lastUrl() {
      return lastUrl;
    },
    stop: () => void page.off('request', onRequest),
  };
}

/**
 * Navigates to `url` and waits for the document to be parsed; the capture waits for the rest.
 * No timeout of its own: a site that never answers runs into the call's deadline (504), which
 * `signal` carries. A load aborted because the host's network changed is made once more, within
 * that deadline, each host resolved and checked by the target guard again (the proxy session's
 * answers may name addresses the change took away).
 */
export function navigate(
  page: Page,
  url: string,
  session: Pick<ProxySession, 'errorFor' | 'resolveAgain'>,
  signal?: AbortSignal,
): Promise<void> {
  // The host only: a URL's path and query may carry a caller's tokens.
  return inSpan('chromium navigate', { 'server.address': hostOf(url) }, async (span) => {
    let main = followMainFrame(page, url);
    let response: HTTPResponse | null;
    try {
      response = await onceMoreIfNetworkChanged(
        () => page.goto(url, { waitUntil: 'domcontentloaded', timeout: 0 }),
        (code) => {
          span.setAttribute('utility_tools.navigation_retried', code);
          session.resolveAgain();
          main.stop();
          main = followMainFrame(page, url);
        },
        signal,
      );
    } catch (err) {
      throw navigationError(err, main.lastUrl, url, session);
    } finally {
      main.stop();
    }
    if (response) span.setAttribute('http.response.status_code', response.status());
    checkMainResponse(response, url, session);
  });
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
