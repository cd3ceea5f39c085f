//! What the tools that read a public page share (seo-meta, web-scrape; broken-links its deps): the
//! page fetched through the guarded client within the page bounds, then read by a Reader, on a
//! reading thread in the network worker rather than on its event loop.
import type { GuardedHttp } from '../../lib/guarded-http.js';
import { createPageFetcher, type PageFetchOptions } from './page-fetch.js';
import type { PageSource } from './page-extract.js';
import type { Reader } from './readings.js';

export interface PageReadingDeps {
  http: Pick<GuardedHttp, 'request'>;
  /** Where the fetched page is parsed and read (a thread pool in the network worker). */
  reader: Reader;
  /** Page size, redirect and deadline bounds. @default 5 MiB, 5 redirects, 15 s (docs/API.md) */
  page?: PageFetchOptions;
}

/** Where the page was answered from, and with what status, beside what was read from it. */
export type PageReading<R> = { finalUrl: string; statusCode: number } & R;

/** Fetches the page at a URL and answers with what `read` makes of its source. */
export type PageReader = <R extends object>(
  url: string,
  signal: AbortSignal,
  read: (source: PageSource) => Promise<R>,
) => Promise<PageReading<R>>;

export function createPageReader({ http, page }: PageReadingDeps): PageReader {
  const fetchPage = createPageFetcher(http, page);
  return async (url, signal, read) => {
    const fetched = await fetchPage(url, signal);
    return { finalUrl: fetched.finalUrl, statusCode: fetched.statusCode, ...(await read(fetched.source)) };
  };
}
