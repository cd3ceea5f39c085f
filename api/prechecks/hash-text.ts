//! hash-text checks that need no I/O: a known algorithm, and the 1 MiB text limit (CONTRACT)
//! counted in UTF-8 bytes, which JSON Schema's `maxLength` (characters) cannot express.
import type { DigestAlgorithm } from '../../activities/cpu/hashing-thread.js';
import { invalidField, utf8Bytes } from './invalid-field.js';

export const HASH_ALGORITHMS = ['md5', 'sha1', 'sha256', 'sha512'] as const satisfies readonly DigestAlgorithm[];

export interface HashTextInput {
  text: string;
  algorithm: DigestAlgorithm;
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
