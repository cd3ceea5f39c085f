//! web-scrape: the structure of a page, the text a simple selector matches, the readable text.
//! Its precheck needs no I/O: an absolute http(s) URL, and a selector of the simple kinds the
//! spec offers (a tag name, `.class` or `#id`). Anything richer is refused here rather than
//! handed to a CSS engine, so the cost of a call never depends on a crafted selector.
import { defineTool, FAILURES } from './definition.js';
import { checkHttpUrl } from './http-url.js';
import { invalidField } from '../../contracts/errors.js';

export interface WebScrapeInput {
  url: string;
  selector?: string;
  includeText: boolean;
}

export interface Heading {
  level: number;
  text: string;
}

/** One value, or every value in document order when the property repeats (og:image often does). */
export type MetaValue = string | string[];

export interface PageLink {
  /** Absolute URL without its fragment (the same document whatever the anchor). */
  url: string;
  /** The first non-empty text among its occurrences (link text, else an image's alt, aria-label or title). */
  text: string;
  /** Same host name as the page. */
  internal: boolean;
  /** True when every occurrence has rel="nofollow": a crawler follows it if any occurrence is followable. */
  nofollow: boolean;
  /** How many `<a>` elements point to it. */
  occurrences: number;
}

export interface PageImage {
  url: string;
  /** The alt text as written; null when the attribute is missing ("" marks a decorative image). */
  alt: string | null;
  width: number | null;
  height: number | null;
}

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

export const MAX_SELECTOR_LENGTH = 100;

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
  checkHttpUrl('/url', input.url);
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
  timeoutMs: 30_000,
  failures: FAILURES.fetchesPage,
  precheck,
  targets: (input) => [{ url: input.url }],
});
