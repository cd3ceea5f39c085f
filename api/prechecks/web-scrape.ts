//! web-scrape checks that need no I/O: an absolute http(s) URL, and a selector of the simple
//! kinds the spec offers (a tag name, `.class` or `#id`). Anything richer is refused here rather
//! than handed to a CSS engine, so the cost of a call never depends on a crafted selector.
import { checkHttpUrl } from './http-url.js';
import { invalidField } from './invalid-field.js';

export interface WebScrapeInput {
  url: string;
  selector?: string;
  includeText: boolean;
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
    throw invalidField('/selector', 'must be a simple selector: a tag name (p), a class (.price) or an id (#main); combinators, attributes and pseudo-classes are not supported');
  }
}
