//! The URL check every fetching tool's precheck shares: an absolute http(s) URL, decided with the
//! WHATWG parser the guard and the client use later. Whether the host may be reached is the
//! target guard's call in the worker (it needs DNS and the operator allowlist).
import { Type } from '@sinclair/typebox';
import { invalidField } from '../../contracts/errors.js';

/** Longest URL accepted; browsers and servers commonly stop near 2 KiB as well. */
export const MAX_URL_LENGTH = 2048;

/** An input field holding such a URL, as the schema bounds it; `description` says what it addresses. */
export const HttpUrlField = (description: string) => Type.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description });

/** Throws a 400 naming `field` unless `value` is an absolute http or https URL. */
export function checkHttpUrl(field: string, value: unknown): void {
  if (typeof value !== 'string' || value.length === 0) throw invalidField(field, 'must be a non-empty string');
  if (value.length > MAX_URL_LENGTH) throw invalidField(field, `must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidField(field, 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidField(field, `must be an http or https URL, not ${url.protocol.slice(0, -1)}`);
  }
}
