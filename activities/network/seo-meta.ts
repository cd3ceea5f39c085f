//! seo-meta: the raw values search engines read from a page (title, description, canonical,
//! robots, og: and twitter: properties, the heading outline, the word count), with no score.
import { precheck, type SeoMetaInput } from '../../api/prechecks/seo-meta.js';
import type { ToolHandler } from '../../lib/tool-handler.js';
import type { GuardedHttp } from '../../lib/guarded-http.js';
import { createPageFetcher, type PageFetchOptions } from './page-fetch.js';
import {
  canonicalUrl, countWords, documentTitle, headings, metaNamed, metaProperties, parseSource, readableText,
  type Heading, type MetaValue, type PageSource,
} from './page-extract.js';
import type { Reader } from './readings.js';

export interface SeoMetaOutput {
  url: string;
  finalUrl: string;
  statusCode: number;
  title: string | null;
  description: string | null;
  canonical: string | null;
  robots: string | null;
  openGraph: Record<string, MetaValue>;
  twitter: Record<string, MetaValue>;
  headings: Heading[];
  wordCount: number;
}

export interface SeoMetaDeps {
  http: Pick<GuardedHttp, 'request'>;
  /** Where the fetched page is parsed and read (a thread pool in the network worker). */
  reader: Reader;
  /** Page size, redirect and deadline bounds. @default CONTRACT's (5 MiB, 5 redirects, 15 s) */
  page?: PageFetchOptions;
}

/** What seo-meta reads from the page itself: everything but where it was fetched from. */
export type SeoReading = Omit<SeoMetaOutput, 'url' | 'finalUrl' | 'statusCode'>;

export function readSeo(source: PageSource): SeoReading {
  const page = parseSource(source);
  return {
    title: documentTitle(page.$),
    description: metaNamed(page.$, 'description'),
    canonical: canonicalUrl(page),
    robots: metaNamed(page.$, 'robots'),
    openGraph: metaProperties(page.$, 'og:'),
    twitter: metaProperties(page.$, 'twitter:'),
    headings: headings(page.$),
    wordCount: countWords(readableText(page.$)),
  };
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
