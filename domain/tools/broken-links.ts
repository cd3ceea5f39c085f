//! broken-links: the links of a page, each checked. Its precheck needs no I/O: an absolute
//! http(s) page URL and maxLinks within 1-30 (docs/API.md; the flat cost of 10 credits is sized for
//! at most 30 checks).
import { invalidField } from '../../contracts/errors.js';
import { defineTool, FAILURES } from './definition.js';
import { checkHttpUrl } from './http-url.js';

export interface BrokenLinksInput {
  url: string;
  maxLinks: number;
}

export interface LinkCheck {
  /** Final HTTP status after redirects; null when no answer came. */
  statusCode: number | null;
  /** No answer, or a status of 400 or more. */
  broken: boolean;
  /**
   * Why the link is broken; null when it is not. `http_status` for a 4xx/5xx answer; else the
   * failure's reason: the guard's (`loopback`, `private`, `metadata`, `scheme` ...) or the
   * client's (`timeout`, `connection_refused`, `dns_nxdomain`, `tls`, `too_many_redirects` ...).
   */
  reason: string | null;
  /** A sentence saying what went wrong; null when the link works. */
  detail: string | null;
  /** Where the redirects (if any) ended; the link itself when there were none or no answer. */
  finalUrl: string;
  /** The method whose outcome is reported. */
  method: 'HEAD' | 'GET';
  elapsedMs: number;
}

export interface CheckedLink extends LinkCheck {
  url: string;
  text: string;
  internal: boolean;
}

export interface BrokenLinksOutput {
  url: string;
  finalUrl: string;
  totalFound: number;
  checked: number;
  brokenCount: number;
  links: CheckedLink[];
  elapsedMs: number;
}

export const MAX_LINKS = 30;

export function precheck(input: BrokenLinksInput): void {
  checkHttpUrl('/url', input.url);
  const { maxLinks } = input;
  if (!Number.isInteger(maxLinks) || maxLinks < 1 || maxLinks > MAX_LINKS)
    throw invalidField('/maxLinks', `must be an integer from 1 to ${MAX_LINKS}`);
}

export const brokenLinks = defineTool<BrokenLinksInput, BrokenLinksOutput>()({
  name: 'broken-links',
  group: 'web',
  cost: 10,
  pool: 'network',
  timeoutMs: 75_000,
  execution: 'queued',
  failures: FAILURES.fetchesPage,
  precheck,
  targets: (input) => [{ url: input.url }],
});
