//! hash-text: a hex digest of a text. Its precheck: a known algorithm, and the 1 MiB text limit
//! (docs/API.md) counted in UTF-8 bytes, which JSON Schema's `maxLength` (characters) cannot express.
import { invalidField } from '../../contracts/errors.js';
import { defineTool } from './definition.js';
import { utf8Bytes } from './utf8-bytes.js';

/** Digests hash-text offers (the schema's two enums are tested against this list). MD5 and SHA-1 are for checksums and legacy interop only. */
export const HASH_ALGORITHMS = ['md5', 'sha1', 'sha256', 'sha512'] as const;
export type HashAlgorithm = (typeof HASH_ALGORITHMS)[number];

export interface HashTextInput {
  text: string;
  algorithm: HashAlgorithm;
}

export interface HashTextOutput {
  algorithm: HashAlgorithm;
  /** Lowercase hexadecimal digest of the text's UTF-8 bytes. */
  hash: string;
}

export const MAX_TEXT_BYTES = 1024 * 1024;

export function precheck(input: HashTextInput): void {
  if (!HASH_ALGORITHMS.includes(input.algorithm)) throw invalidField('/algorithm', `must be one of ${HASH_ALGORITHMS.join(', ')}`);
  if (typeof input.text !== 'string') throw invalidField('/text', 'must be a string');
  const bytes = utf8Bytes(input.text);
  if (bytes > MAX_TEXT_BYTES) {
    throw invalidField('/text', `is ${bytes} bytes in UTF-8; at most ${MAX_TEXT_BYTES} bytes (1 MiB) can be hashed`);
  }
}

export const hashText = defineTool<HashTextInput, HashTextOutput>()({
  name: 'hash-text',
  group: 'hashing',
  cost: 1,
  pool: 'cpu',
  timeoutMs: 10_000,
  failures: [],
  precheck,
});
