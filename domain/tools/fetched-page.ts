//! What the tools that fetch the caller's page (`url`: web-scrape, seo-meta, broken-links) share:
//! the field that names it, a precheck that needs no I/O (the address is an absolute http(s) URL),
//! the one target a call reaches, and their failures. Whether it is a page is decided after the
//! download, from its Content-Type.
import { FAILURES } from './definition.js';
import { checkHttpUrl, HttpUrlField } from './http-url.js';

/** The part of a page tool's input that says where its page is. */
export interface PageUrlInput {
  url: string;
}

/** The `url` input field of a page tool. */
export const PageUrl = HttpUrlField('Absolute http or https URL of the page, at most 2048 characters. Up to 5 redirects are followed.');

/** The page's address is an absolute http(s) URL. */
export function precheckPageUrl(input: PageUrlInput): void {
  checkHttpUrl('/url', input.url);
}

/** A page tool's definition beyond its name, group, price, pool, deadline and precheck. */
export const FETCHES_PAGE = {
  failures: FAILURES.fetchesPage,
  targets: (input: PageUrlInput) => [{ url: input.url }],
} as const;
