//! What web-scrape and seo-meta read from a fetched page's markup, everything but where it was
//! fetched from: the same extractors (page-extract.ts), each tool taking what it answers with.
//! Pure (bytes in, plain data out), so a reading thread runs them (readings.ts).
import type { SeoMetaOutput } from '../../domain/tools/seo-meta.js';
import type { WebScrapeOutput } from '../../domain/tools/web-scrape.js';
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
  type PageSource,
} from './page-extract.js';

/** The first 50,000 characters of text are returned (docs/API.md). */
export const MAX_TEXT_CHARS = 50_000;
/**
 * Bounds on the lists (headings: MAX_HEADINGS), so that a 5 MiB page of nothing but links cannot answer with tens of
 * megabytes. Real pages stay far below them.
 */
export const LIST_LIMITS = { links: 2_000, images: 1_000, selectorMatches: 1_000 } as const;
/** Characters kept of each selector match (a match may be the whole body). */
export const MAX_MATCH_CHARS = 10_000;

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
