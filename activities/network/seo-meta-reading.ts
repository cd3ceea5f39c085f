//! What seo-meta reads from a fetched page itself, everything but where it was fetched from.
//! Pure (bytes in, plain data out), so a reading thread runs it (readings.ts).
import type { SeoMetaOutput } from '../../domain/tools/seo-meta.js';
import {
  canonicalUrl,
  countWords,
  documentTitle,
  headings,
  metaNamed,
  metaProperties,
  parseSource,
  readableText,
  type PageSource,
} from './page-extract.js';

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
