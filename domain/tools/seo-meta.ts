//! seo-meta: the raw values search engines read from a page. Its precheck needs no I/O: the
//! page's address is an absolute http(s) URL.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, OrNull, StringMap, type Validated } from '../../lib/schema-types.js';
import { defineTool } from './definition.js';
import { FETCHES_PAGE, MetaValue, PageHeading, PageUrl, precheckPageUrl } from './fetched-page.js';

export const SeoMetaInput = ClosedObject(
  {
    url: PageUrl,
  },
  {
    description:
      'A public page whose search-engine metadata to read. Downloaded like web-scrape: non-public targets refused (422 target_not_allowed, also on redirects), at most 5 MiB (422 source_too_large), text or HTML only (422 unsupported_source).',
    examples: [{ url: 'https://example.com/' }],
  },
);
export type SeoMetaInput = Validated<typeof SeoMetaInput>;
export const SeoMetaOutput = ClosedObject(
  {
    url: Type.String({ description: 'Page analysed, as requested.' }),
    finalUrl: Type.String({ description: 'Additive: address of the page read, after redirects.' }),
    statusCode: Type.Integer({ description: 'Additive: HTTP status the page was answered with.' }),
    title: OrNull(Type.String(), {
      description: 'Title tag contents with white space collapsed (as search results show it), or null.',
    }),
    description: OrNull(Type.String(), {
      description: 'Content of the first meta name=description, as written, or null.',
    }),
    canonical: OrNull(Type.String(), {
      description: 'The first link rel=canonical, resolved to an absolute URL, or null.',
    }),
    robots: OrNull(Type.String(), {
      description: 'Content of meta name=robots, as written (e.g. noindex, nofollow), or null.',
    }),
    openGraph: StringMap(MetaValue, {
      description:
        'Every og: property found, keyed by the full property in lower case (og:title); a repeated property has an array of its values.',
    }),
    twitter: StringMap(MetaValue, {
      description: 'Every twitter: property found (name or property attribute), keyed like openGraph (twitter:card).',
    }),
    headings: Type.Array(PageHeading, {
      maxItems: 1000,
      description: 'Outline of h1-h6 in document order (at most 1000): level and text.',
    }),
    wordCount: Type.Integer({
      minimum: 0,
      description:
        'Approximate word count of the visible body text: scripts, styles, templates and inline-hidden elements left out (stylesheets are not applied).',
    }),
  },
  {
    description: 'Raw values as the page declares them, no score. A page answered with an error status is still read: statusCode tells.',
    examples: [
      {
        url: 'https://example.com/',
        finalUrl: 'https://example.com/',
        statusCode: 200,
        title: 'Example Domain',
        description: 'An example page.',
        canonical: 'https://example.com/',
        robots: 'index, follow',
        openGraph: { 'og:title': 'Example Domain' },
        twitter: { 'twitter:card': 'summary' },
        headings: [{ level: 1, text: 'Example Domain' }],
        wordCount: 28,
      },
    ],
  },
);
export type SeoMetaOutput = Static<typeof SeoMetaOutput>;

export const precheck: (input: SeoMetaInput) => void = precheckPageUrl;

export const seoMeta = defineTool<SeoMetaInput, SeoMetaOutput>()({
  name: 'seo-meta',
  group: 'web',
  cost: 2,
  pool: 'network',
  schemas: { input: SeoMetaInput, output: SeoMetaOutput },
  timeoutMs: 30_000,
  ...FETCHES_PAGE,
  precheck,
});
