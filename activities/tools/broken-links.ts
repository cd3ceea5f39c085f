//! broken-links: fetches a page, takes its unique http(s) links in document order (the page
//! carries no dates, so "newest first" cannot be known; the first `maxLinks` in reading order
//! are checked) and checks them five at a time.
import { precheck, type BrokenLinksInput, type BrokenLinksOutput } from '../../domain/tools/broken-links.js';
import { ToolError } from '../../contracts/errors.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { createLinkChecker, type LinkCheckOptions } from '../network/link-check.js';
import { createPageFetcher } from '../network/page-fetch.js';
import type { PageReadingDeps } from '../network/page-reading.js';

export interface BrokenLinksDeps extends PageReadingDeps {
  /** Bounds of each link's check. @default 6 s per link, 5 redirects */
  link?: LinkCheckOptions;
  /** Links checked at once. @default 5 */
  concurrency?: number;
}

export const LINK_CONCURRENCY = 5;

/** `work` applied to every item with at most `limit` running at once; results in input order. */
export async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const runner = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner));
  return results;
}

export function createBrokenLinks(deps: BrokenLinksDeps): ToolHandler<BrokenLinksInput, BrokenLinksOutput> {
  const concurrency = deps.concurrency ?? LINK_CONCURRENCY;
  const fetchPage = createPageFetcher(deps.http, deps.page);
  const checkLink = createLinkChecker(deps.http, deps.link);
  return async (input, ctx) => {
    precheck(input);
    const started = performance.now();
    const page = await fetchPage(input.url, ctx.signal);
    // The links of an error page say nothing about the page asked for.
    if (page.statusCode < 200 || page.statusCode >= 300) {
      throw new ToolError('upstream_error', `The page answered ${page.statusCode}, so its links cannot be checked.`, {
        reason: 'http_status',
        statusCode: page.statusCode,
      });
    }
    const found = await deps.reader('links', [page.source], ctx.signal);
    const links = await mapWithConcurrency(found.slice(0, input.maxLinks), concurrency, async (link) => {
      const check = await checkLink(link.url, ctx.signal);
      ctx.heartbeat();
      return { url: link.url, text: link.text, internal: link.internal, ...check };
    });
    return {
      url: input.url,
      finalUrl: page.finalUrl,
      totalFound: found.length,
      checked: links.length,
      brokenCount: links.filter((l) => l.broken).length,
      links,
      elapsedMs: Math.round(performance.now() - started),
    };
  };
}
