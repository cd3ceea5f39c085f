//! Which error codes each tool can answer with beyond those every tool call shares (SPEC.md's
//! endpoint texts, CONTRACT.md's error table), so the reference lists only what can happen.
import type { ErrorCode } from '../../lib/errors.js';

const FETCHES_PAGE: readonly ErrorCode[] = ['target_not_allowed', 'source_too_large', 'upstream_error'];
const FETCHES_FILE: readonly ErrorCode[] = ['target_not_allowed', 'source_too_large', 'unsupported_source', 'upstream_error'];
const CONNECTS: readonly ErrorCode[] = ['target_not_allowed', 'upstream_error'];
const READS_HASH: readonly ErrorCode[] = ['hash_too_costly', 'invalid_hash'];

const TOOL_FAILURES: Readonly<Record<string, readonly ErrorCode[]>> = {
  ping: CONNECTS,
  // Internal names (single-label, .local, .internal ...) are refused before any query.
  'dns-lookup': ['target_not_allowed', 'upstream_error'],
  'ssl-check': CONNECTS,
  'smtp-test': [...CONNECTS, 'port_not_allowed'],
  'http-request': CONNECTS,
  'website-screenshot': CONNECTS,
  'html-to-image': [],
  'web-scrape': FETCHES_PAGE,
  'broken-links': FETCHES_PAGE,
  'seo-meta': FETCHES_PAGE,
  'watermark-image': FETCHES_FILE,
  'image-upscale': FETCHES_FILE,
  'pdf-metadata': FETCHES_FILE,
  'word-to-pdf': FETCHES_FILE,
  'qr-generate': [],
  'bcrypt-hash': [],
  'bcrypt-verify': READS_HASH,
  'argon2-verify': READS_HASH,
  'hash-text': [],
  'gold-price': ['upstream_error'],
};

/** Every tool-specific code: what an unlisted tool is documented with, to err on the side of completeness. */
const ALL: readonly ErrorCode[] = [...new Set(Object.values(TOOL_FAILURES).flat())];

export function toolFailures(tool: string): readonly ErrorCode[] {
  return TOOL_FAILURES[tool] ?? ALL;
}
