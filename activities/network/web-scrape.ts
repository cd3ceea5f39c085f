//! web-scrape: the structure of a page (title, meta, headings, links, images, og: tags), the text
//! of the nodes a simple selector matches, and the readable text.
import { precheck, type WebScrapeInput } from '../../api/prechecks/web-scrape.js';
import type { ToolHandler } from '../../lib/tool-handler.js';
import type { GuardedHttp } from '../../lib/guarded-http.js';
import { createPageFetcher, type PageFetchOptions } from './page-fetch.js';
import type { Reader } from './readings.js';
import {
  canonicalUrl,
  countWords,
  documentTitle,
  headings,
  metaNamed,
  metaProperties,
  pageImages,
  pageLinks,
  parseSource,
  readableText,
  selectorTexts,
  type Heading,
  type MetaValue,
  type PageImage,
  type PageLink,
  type PageSource,
} from './page-extract.js';

/** CONTRACT: the first 50,000 characters of text are returned. */
export const MAX_TEXT_CHARS = 50_000;
/**
 * Bounds on the lists (headings: MAX_HEADINGS), so that a 5 MiB page of nothing but links cannot answer with tens of
 * megabytes. Real pages stay far below them.
 */
export const LIST_LIMITS = { links: 2_000, images: 1_000, selectorMatches: 1_000 } as const;
/** Characters kept of each selector match (a match may be the whole body). */
export const MAX_MATCH_CHARS = 10_000;

export interface WebScrapeOutput {
  finalUrl: string;
  statusCode: number;
  title: string | null;
  metaDescription: string | null;
  canonical: string | null;
  headings: Heading[];
  links: PageLink[];
  images: PageImage[];
  openGraph: Record<string, MetaValue>;
  selectorMatches: string[];
  text: string | null;
  textTruncated: boolean;
  wordCount: number;
}

export interface WebScrapeDeps {
  http: Pick<GuardedHttp, 'request'>;
  /** Where the fetched page is parsed and read (a thread pool in the network worker). */
  reader: Reader;
  /** Page size, redirect and deadline bounds. @default CONTRACT's (5 MiB, 5 redirects, 15 s) */
  page?: PageFetchOptions;
}

/** The first `max` characters, never splitting a surrogate pair. */
export function truncateText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const cut = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return { text: text.slice(0, cut), truncated: true };
}

/** What web-scrape reads from the page itself: everything but where it was fetched from. */
export type ScrapeReading = Omit<WebScrapeOutput, 'finalUrl' | 'statusCode'>;

export function readScrape(source: PageSource, options: { selector?: string; includeText: boolean }): ScrapeReading {
  const page = parseSource(source);
  const text = readableText(page.$);
  const shown = options.includeText ? truncateText(text, MAX_TEXT_CHARS) : { text: null, truncated: false };
  return {
    title: documentTitle(page.$),
    metaDescription: metaNamed(page.$, 'description'),
    canonical: canonicalUrl(page),
    headings: headings(page.$),
    links: pageLinks(page).slice(0, LIST_LIMITS.links),
    images: pageImages(page).slice(0, LIST_LIMITS.images),
    openGraph: metaProperties(page.$, 'og:'),
    selectorMatches: options.selector ? selectorTexts(page.$, options.selector, LIST_LIMITS.selectorMatches, MAX_MATCH_CHARS) : [],
    text: shown.text,
    textTruncated: shown.truncated,
    wordCount: countWords(text),
  };
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
