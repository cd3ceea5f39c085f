//! broken-links: the links of a page, each checked. Its precheck needs no I/O: an absolute
//! http(s) page URL and maxLinks within 1-30 (docs/API.md; the flat cost of 10 credits is sized for
//! at most 30 checks).
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, Defaulted, OrNull, StringEnum, type Validated } from '../../lib/schema-types.js';
import { invalidField } from '../../contracts/errors.js';
import { defineTool } from './definition.js';
import { FETCHES_PAGE, PageUrl, precheckPageUrl } from './fetched-page.js';

export const MAX_LINKS = 30;

export const BrokenLinksInput = ClosedObject(
  {
    url: PageUrl,
    maxLinks: Defaulted(
      Type.Integer({
        minimum: 1,
        maximum: MAX_LINKS,
        description:
          'Number of links to check, 1 to 30. A page carries no dates, so "newest first" is taken as document order: the first maxLinks distinct http(s) links as they appear on the page.',
      }),
      30,
    ),
  },
  {
    description:
      "A public page whose links to check. The page is downloaded like web-scrape's (non-public targets refused with 422, also on redirects); it must answer 2xx (otherwise 502 upstream_error). Each link is then checked through the same guard: a link to a private address is reported broken, it does not fail the call. 10 credits whatever maxLinks is.",
    examples: [{ url: 'https://example.com/', maxLinks: 30 }],
  },
);
export type BrokenLinksInput = Validated<typeof BrokenLinksInput>;
export const BrokenLinksOutput = ClosedObject(
  {
    url: Type.String({ description: 'Page crawled, as requested.' }),
    finalUrl: Type.String({ description: 'Additive: address of the page read, after redirects (links resolve against it).' }),
    totalFound: Type.Integer({
      minimum: 0,
      description: 'Distinct http(s) links on the page (fragments dropped; in-page anchors and mailto:, tel:, javascript: left out).',
    }),
    checked: Type.Integer({
      minimum: 0,
      maximum: MAX_LINKS,
      description: 'Links actually checked: the smaller of totalFound and maxLinks.',
    }),
    brokenCount: Type.Integer({ minimum: 0, description: 'Additive: how many checked links are broken.' }),
    links: Type.Array(
      ClosedObject({
        url: Type.String(),
        text: Type.String(),
        internal: Type.Boolean(),
        statusCode: OrNull(Type.Integer()),
        broken: Type.Boolean(),
        reason: OrNull(Type.String()),
        detail: OrNull(Type.String()),
        finalUrl: Type.String(),
        method: StringEnum(['HEAD', 'GET']),
        elapsedMs: Type.Integer({ minimum: 0 }),
      }),
      {
        maxItems: MAX_LINKS,
        description:
          "Each checked link in document order: url, text, internal (same host as the page), statusCode (final status after redirects; null without an answer), broken (no answer, or status 400 or more), reason (null when not broken; http_status for a 4xx/5xx answer; otherwise why no answer came: a refused target's reason such as loopback, private or metadata, or timeout, connection_refused, connection_reset, tls, dns_nxdomain, too_many_redirects ...), detail (a sentence, null when not broken), finalUrl, method (HEAD or GET: whose outcome is reported), elapsedMs.",
      },
    ),
    elapsedMs: Type.Integer({ minimum: 0, description: 'Total crawl duration in milliseconds: the page and every check.' }),
  },
  {
    description:
      'Each checked link with its status. Links are checked five at a time: HEAD first, then GET when the HEAD answer is 400 or more or the connection broke (servers that mishandle HEAD); at most 6 s per link and 5 redirects, each re-checked by the guard.',
    examples: [
      {
        url: 'https://example.com/',
        finalUrl: 'https://example.com/',
        totalFound: 2,
        checked: 2,
        brokenCount: 1,
        links: [
          {
            url: 'https://example.com/about',
            text: 'About',
            internal: true,
            statusCode: 200,
            broken: false,
            reason: null,
            detail: null,
            finalUrl: 'https://example.com/about',
            method: 'HEAD',
            elapsedMs: 84,
          },
          {
            url: 'https://example.com/old',
            text: 'Old page',
            internal: true,
            statusCode: 404,
            broken: true,
            reason: 'http_status',
            detail: 'The link answered 404.',
            finalUrl: 'https://example.com/old',
            method: 'GET',
            elapsedMs: 131,
          },
        ],
        elapsedMs: 412,
      },
    ],
  },
);
export type BrokenLinksOutput = Static<typeof BrokenLinksOutput>;

/** A checked link as the answer lists it. */
export type CheckedLink = BrokenLinksOutput['links'][number];
/** What checking a link found: all of `CheckedLink` but what the page says of it. */
export type LinkCheck = Omit<CheckedLink, 'url' | 'text' | 'internal'>;

export function precheck(input: BrokenLinksInput): void {
  precheckPageUrl(input);
  const { maxLinks } = input;
  if (!Number.isInteger(maxLinks) || maxLinks < 1 || maxLinks > MAX_LINKS)
    throw invalidField('/maxLinks', `must be an integer from 1 to ${MAX_LINKS}`);
}

export const brokenLinks = defineTool<BrokenLinksInput, BrokenLinksOutput>()({
  name: 'broken-links',
  group: 'web',
  cost: 10,
  pool: 'network',
  schemas: { input: BrokenLinksInput, output: BrokenLinksOutput },
  timeoutMs: 75_000,
  execution: 'queued',
  ...FETCHES_PAGE,
  precheck,
});
