//! seo-meta checks that need no I/O: the page's address is an absolute http(s) URL.
import { checkHttpUrl } from './http-url.js';

export interface SeoMetaInput {
  url: string;
}

export function precheck(input: SeoMetaInput): void {
  checkHttpUrl('/url', input.url);
}
