//! seo-meta: the raw values search engines read from a page (title, description, canonical,
//! robots, og: and twitter: properties, the heading outline, the word count), with no score.
import { precheck, type SeoMetaInput, type SeoMetaOutput } from '../../domain/tools/seo-meta.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import type { GuardedHttp } from '../../lib/guarded-http.js';
import { createPageFetcher, type PageFetchOptions } from '../network/page-fetch.js';
import type { Reader } from '../network/readings.js';

export interface SeoMetaDeps {
  http: Pick<GuardedHttp, 'request'>;
  /** Where the fetched page is parsed and read (a thread pool in the network worker). */
  reader: Reader;
  /** Page size, redirect and deadline bounds. @default 5 MiB, 5 redirects, 15 s (docs/API.md) */
  page?: PageFetchOptions;
}

export function createSeoMeta(deps: SeoMetaDeps): ToolHandler<SeoMetaInput, SeoMetaOutput> {
  const fetchPage = createPageFetcher(deps.http, deps.page);
  return async (input, ctx) => {
    precheck(input);
    const page = await fetchPage(input.url, ctx.signal);
    const reading = await deps.reader('seo', [page.source], ctx.signal);
    return { url: input.url, finalUrl: page.finalUrl, statusCode: page.statusCode, ...reading };
  };
}
