//! What the tools that fetch the caller's page (`url`: web-scrape, seo-meta, broken-links) share:
//! the field that names it, a precheck that needs no I/O (the address is an absolute http(s) URL),
//! the one target a call reaches, their failures, and the parts of a page both web-scrape and
//! seo-meta answer with. Whether it is a page is decided after the download, from its Content-Type.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject } from '../../lib/schema-types.js';
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

/** A heading of the page's outline: its level (1 for h1 ... 6 for h6) and its text. */
export const PageHeading = ClosedObject({ level: Type.Integer({ minimum: 1, maximum: 6 }), text: Type.String() });
export type PageHeading = Static<typeof PageHeading>;

/** A meta property's value: the one given, or each in document order when the property repeats (og:image often does). */
export const MetaValue = Type.Union([Type.String(), Type.Array(Type.String())]);
export type MetaValue = Static<typeof MetaValue>;
