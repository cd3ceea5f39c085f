//! broken-links checks that need no I/O: an absolute http(s) page URL and maxLinks within 1-30
//! (CONTRACT; the flat cost of 10 credits is sized for at most 30 checks).
import { checkHttpUrl } from './http-url.js';
import { invalidField } from './invalid-field.js';

export interface BrokenLinksInput {
  url: string;
  maxLinks: number;
}

export const MAX_LINKS = 30;

export function precheck(input: BrokenLinksInput): void {
  checkHttpUrl('/url', input.url);
  const { maxLinks } = input;
  if (!Number.isInteger(maxLinks) || maxLinks < 1 || maxLinks > MAX_LINKS) throw invalidField('/maxLinks', `must be an integer from 1 to ${MAX_LINKS}`);
}
