//! web-scrape: the structure of a page, the text a simple selector matches, the readable text.
//! Its precheck needs no I/O: an absolute http(s) URL, and a selector of the simple kinds the
//! spec offers (a tag name, `.class` or `#id`). Anything richer is refused here rather than
//! handed to a CSS engine, so the cost of a call never depends on a crafted selector.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, Defaulted, OrNull, StringMap, type Validated } from '../../lib/schema-types.js';
import { defineTool } from './definition.js';
import { FETCHES_PAGE, MetaValue, PageHeading, PageUrl, precheckPageUrl } from './fetched-page.js';
import { invalidField } from '../../contracts/errors.js';

export const MAX_SELECTOR_LENGTH = 100;

export const WebScrapeInput = ClosedObject(
  {
    url: PageUrl,
    selector: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_SELECTOR_LENGTH,
        description:
          'Simple selector: a tag name (p), a class (.price) or an id (#main). Full CSS (combinators, attributes, pseudo-classes, lists) is refused (400).',
      }),
    ),
    includeText: Defaulted(
      Type.Boolean({
        description:
          'Include the readable text (text is null when false); turn off for a smaller response. wordCount is computed either way.',
      }),
      true,
    ),
  },
  {
    description:
      'A public page to download and read. The download goes through a client that refuses private, loopback, link-local and other non-public targets (422 target_not_allowed), also on every redirect. Pages over 5 MiB are refused (422 source_too_large), and so is anything that is not text or HTML (422 unsupported_source).',
    examples: [{ url: 'https://example.com/', selector: '.price', includeText: true }],
  },
);
export type WebScrapeInput = Validated<typeof WebScrapeInput>;
export const WebScrapeOutput = ClosedObject(
  {
    finalUrl: Type.String({ description: 'Address of the page read, after redirects.' }),
    statusCode: Type.Integer({ description: 'HTTP status the page was answered with.' }),
    title: OrNull(Type.String(), {
      description: 'Document title with white space collapsed, as browsers show it; null without a title element.',
    }),
    metaDescription: OrNull(Type.String(), {
      description: 'Content of the first meta name=description, as written; null when absent.',
    }),
    canonical: OrNull(Type.String(), {
      description: 'The first link rel=canonical, resolved to an absolute URL; null when not declared.',
    }),
    headings: Type.Array(PageHeading, {
      maxItems: 1000,
      description: 'Every h1-h6 in document order (at most 1000): level (1-6) and text (at most 1000 characters).',
    }),
    links: Type.Array(
      ClosedObject({
        url: Type.String(),
        text: Type.String(),
        internal: Type.Boolean(),
        nofollow: Type.Boolean(),
        occurrences: Type.Integer({ minimum: 1 }),
      }),
      {
        maxItems: 2000,
        description:
          'Distinct http(s) links (a href) in document order, at most 2000: url (absolute, resolved against the page or its base element, without #fragment; duplicates merged), text (the first non-empty link text, image alt, aria-label or title), internal (same host name as the page), nofollow (every occurrence has rel=nofollow), occurrences (how many a elements point to it). In-page anchors (#...) and mailto:, tel:, javascript: links are left out.',
      },
    ),
    images: Type.Array(
      ClosedObject({
        url: Type.String(),
        alt: OrNull(Type.String()),
        width: OrNull(Type.Integer({ minimum: 0 })),
        height: OrNull(Type.Integer({ minimum: 0 })),
      }),
      {
        maxItems: 1000,
        description:
          'Every img in document order, at most 1000: url (absolute; data-src when src is missing; inline data: images are left out), alt (as written; null when the attribute is missing, "" for a decorative image), width and height (the declared attributes in pixels; null when not declared or not a number of pixels).',
      },
    ),
    openGraph: StringMap(MetaValue, {
      description:
        'og: meta tags (property or name attribute) keyed by the full property in lower case (og:title, og:image:width); a property given more than once (og:image) has an array of its values in document order.',
    }),
    selectorMatches: Type.Array(Type.String(), {
      maxItems: 1000,
      description:
        'Text of each element the selector matches, in document order (at most 1000, each at most 10,000 characters, white space collapsed); empty when no selector was given.',
    }),
    text: OrNull(Type.String({ maxLength: 50000 }), {
      description:
        'Readable text of the body: one line per block element, white space collapsed; scripts, styles, templates and inline-hidden elements left out. The first 50,000 characters. Null when includeText is false.',
    }),
    textTruncated: Type.Boolean({ description: 'Additive: true when the readable text was longer than 50,000 characters and was cut.' }),
    wordCount: Type.Integer({
      minimum: 0,
      description: 'Words in the whole readable text (before truncation): runs between white space holding a letter or digit.',
    }),
  },
  {
    description: "The page's structure. A page answered with an error status (a 404 page) is still read: statusCode tells.",
    examples: [
      {
        finalUrl: 'https://example.com/',
        statusCode: 200,
        title: 'Example Domain',
        metaDescription: 'An example page.',
        canonical: 'https://example.com/',
        headings: [{ level: 1, text: 'Example Domain' }],
        links: [
          { url: 'https://www.iana.org/domains/example', text: 'More information...', internal: false, nofollow: false, occurrences: 1 },
        ],
        images: [{ url: 'https://example.com/logo.png', alt: 'Logo', width: 120, height: 40 }],
        openGraph: { 'og:title': 'Example Domain', 'og:type': 'website' },
        selectorMatches: ['$19.99'],
        text: 'Example Domain\nThis domain is for use in illustrative examples in documents.\nMore information...',
        textTruncated: false,
        wordCount: 14,
      },
    ],
  },
);
export type WebScrapeOutput = Static<typeof WebScrapeOutput>;

/** A distinct link: its first text, whether it is on the page's host, whether every occurrence is nofollow, and how many `<a>` point to it. */
export type PageLink = WebScrapeOutput['links'][number];
/** An image; its alt text null when the attribute is missing ("" marks a decorative image). */
export type PageImage = WebScrapeOutput['images'][number];

/** Tag names as HTML writes them; custom elements carry a hyphen. */
const TAG = /^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*$/;
/** A CSS identifier without escapes: not starting with a digit, or with a hyphen and a digit. */
const IDENT = '-?[A-Za-z_][A-Za-z0-9_-]*';
const CLASS_OR_ID = new RegExp(`^[.#]${IDENT}$`);

export type SimpleSelector = { kind: 'tag' | 'class' | 'id'; name: string };

/** The selector's kind and name, or `undefined` when it is not a simple selector. */
export function parseSimpleSelector(selector: string): SimpleSelector | undefined {
  if (selector.length > MAX_SELECTOR_LENGTH) return undefined;
  if (TAG.test(selector)) return { kind: 'tag', name: selector.toLowerCase() };
  if (!CLASS_OR_ID.test(selector)) return undefined;
  return { kind: selector[0] === '.' ? 'class' : 'id', name: selector.slice(1) };
}

export function precheck(input: WebScrapeInput): void {
  precheckPageUrl(input);
  const { selector } = input;
  if (selector === undefined) return;
  if (typeof selector !== 'string' || !parseSimpleSelector(selector)) {
    throw invalidField(
      '/selector',
      'must be a simple selector: a tag name (p), a class (.price) or an id (#main); combinators, attributes and pseudo-classes are not supported',
    );
  }
}

export const webScrape = defineTool<WebScrapeInput, WebScrapeOutput>()({
  name: 'web-scrape',
  group: 'web',
  cost: 3,
  pool: 'network',
  schemas: { input: WebScrapeInput, output: WebScrapeOutput },
  timeoutMs: 30_000,
  ...FETCHES_PAGE,
  precheck,
});
