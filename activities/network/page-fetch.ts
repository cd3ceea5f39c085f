//! Fetches an HTML page for web-scrape, seo-meta and broken-links through the guarded client:
//! a few redirects, each hop re-checked by the guard; compressed bodies undone; at most 5 MiB
//! (docs/API.md); something that is not a page answers 422. The page comes back as bytes: parsing a
//! large one takes seconds of CPU, so the tools hand it to a Reader (readings.ts).
import { ToolError } from '../../contracts/errors.js';
import type { GuardedHttp } from '../../lib/guarded-http.js';
import { mediaTypeOf } from './http-message.js';
import type { PageSource } from './page-extract.js';

export interface PageFetchOptions {
  /** Largest page read, bytes after decompression; a larger one is 422 source_too_large. @default 5 MiB (docs/API.md) */
  maxBytes?: number;
  /** Redirects followed, each re-checked by the guard. @default 5 */
  maxRedirects?: number;
  /** Deadline for DNS, every hop and the body, milliseconds. @default 15000 */
  timeoutMs?: number;
}

export const MAX_PAGE_BYTES = 5 * 1024 * 1024;
export const PAGE_MAX_REDIRECTS = 5;
export const PAGE_TIMEOUT_MS = 15_000;

export interface FetchedPage {
  /** The URL answered after redirects. */
  finalUrl: string;
  statusCode: number;
  source: PageSource;
}

export type PageFetcher = (url: string, signal: AbortSignal) => Promise<FetchedPage>;

const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5';

/**
 * Whether a Content-Type can be read as a page. No type at all is taken as HTML, as browsers
 * sniff it; text/plain and other text parse as a page without markup.
 */
export function isPageType(contentType: string | undefined): boolean {
  const type = mediaTypeOf(contentType);
  return type === null || type.startsWith('text/') || type === 'application/xhtml+xml';
}

export function createPageFetcher(http: Pick<GuardedHttp, 'request'>, options: PageFetchOptions = {}): PageFetcher {
  const maxBytes = options.maxBytes ?? MAX_PAGE_BYTES;
  return async (url, signal) => {
    const res = await http.request({
      url,
      headers: { accept: ACCEPT },
      maxBytes,
      maxRedirects: options.maxRedirects ?? PAGE_MAX_REDIRECTS,
      timeoutMs: options.timeoutMs ?? PAGE_TIMEOUT_MS,
      decompress: true,
      signal,
    });
    const contentType = res.headers['content-type'];
    if (!isPageType(contentType)) {
      throw new ToolError('unsupported_source', `The address answered with ${mediaTypeOf(contentType)}, not an HTML page.`, {
        contentType: mediaTypeOf(contentType),
      });
    }
    if (res.truncated) {
      throw new ToolError('source_too_large', `The page is larger than ${maxBytes / (1024 * 1024)} MiB, the most that is read.`, {
        limitBytes: maxBytes,
      });
    }
    return { finalUrl: res.finalUrl, statusCode: res.statusCode, source: { body: res.body, url: res.finalUrl, contentType } };
  };
}
