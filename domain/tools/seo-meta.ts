//! seo-meta: the raw values search engines read from a page. Its precheck needs no I/O: the
//! page's address is an absolute http(s) URL.
import { defineTool, FAILURES } from './definition.js';
import { checkHttpUrl } from './http-url.js';
import type { Heading, MetaValue } from './web-scrape.js';

export interface SeoMetaInput {
  url: string;
}

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

export function precheck(input: SeoMetaInput): void {
  checkHttpUrl('/url', input.url);
}

export const seoMeta = defineTool<SeoMetaInput, SeoMetaOutput>()({
  name: 'seo-meta',
  group: 'web',
  cost: 2,
  pool: 'network',
  timeoutMs: 30_000,
  failures: FAILURES.fetchesPage,
  precheck,
  targets: (input) => [{ url: input.url }],
});
