//! web-scrape: the structure of a page (title, meta, headings, links, images, og: tags), the text
//! of the nodes a simple selector matches, and the readable text.
import { precheck, type WebScrapeInput, type WebScrapeOutput } from '../../domain/tools/web-scrape.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import type { GuardedHttp } from '../../lib/guarded-http.js';
import { createPageFetcher, type PageFetchOptions } from '../network/page-fetch.js';
import type { Reader } from '../network/readings.js';

export interface WebScrapeDeps {
  http: Pick<GuardedHttp, 'request'>;
  /** Where the fetched page is parsed and read (a thread pool in the network worker). */
  reader: Reader;
  /** Page size, redirect and deadline bounds. @default 5 MiB, 5 redirects, 15 s (docs/API.md) */
  page?: PageFetchOptions;
}

export function createWebScrape(deps: WebScrapeDeps): ToolHandler<WebScrapeInput, WebScrapeOutput> {
  const fetchPage = createPageFetcher(deps.http, deps.page);
  return async (input, ctx) => {
    precheck(input);
    const page = await fetchPage(input.url, ctx.signal);
    const reading = await deps.reader('scrape', [page.source, { selector: input.selector, includeText: input.includeText }], ctx.signal);
    return { finalUrl: page.finalUrl, statusCode: page.statusCode, ...reading };
  };
}
