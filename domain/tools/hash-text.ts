//! hash-text: a hex digest of a text. Its precheck: a known algorithm, and the 1 MiB text limit
//! (docs/API.md) counted in UTF-8 bytes, which JSON Schema's `maxLength` (characters) cannot express.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, Defaulted, StringEnum, type Validated } from '../../lib/schema-types.js';
import { invalidField } from '../../contracts/errors.js';
import { defineTool } from './definition.js';
import { utf8Bytes } from './utf8-bytes.js';

/** Digests hash-text offers. MD5 and SHA-1 are for checksums and legacy interop only. */
export const HASH_ALGORITHMS = ['md5', 'sha1', 'sha256', 'sha512'] as const;
export type HashAlgorithm = (typeof HASH_ALGORITHMS)[number];
export const MAX_TEXT_BYTES = 1024 * 1024;

export const HashTextInput = ClosedObject(
  {
    text: Type.String({
      maxLength: MAX_TEXT_BYTES,
      description: 'String to hash, digested as its UTF-8 bytes; may be empty. At most 1 MiB (1,048,576 bytes) in UTF-8.',
    }),
    algorithm: Defaulted(StringEnum(HASH_ALGORITHMS, { description: 'Digest algorithm: md5, sha1, sha256 or sha512.' }), 'sha256'),
  },
  {
    description: 'Text to digest and the algorithm to use. MD5 and SHA-1 are offered for checksums and legacy interoperability only.',
    examples: [{ text: 'hello world', algorithm: 'sha256' }],
  },
);
export type HashTextInput = Validated<typeof HashTextInput>;
export const HashTextOutput = ClosedObject(
  {
    algorithm: StringEnum(HASH_ALGORITHMS, { description: 'Algorithm used.' }),
    hash: Type.String({
      pattern: '^[0-9a-f]+$',
      description: 'Lowercase hexadecimal digest: 32 characters for md5, 40 for sha1, 64 for sha256, 128 for sha512.',
    }),
  },
  { examples: [{ algorithm: 'sha256', hash: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9' }] },
);
export type HashTextOutput = Static<typeof HashTextOutput>;

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
  schemas: { input: HashTextInput, output: HashTextOutput },
  timeoutMs: 10_000,
  failures: [],
  precheck,
});
