//! hash-text: digests that match node:crypto for every algorithm, the 1 MiB limit, the schemas.
import { createHash } from 'node:crypto';
import test from 'ava';
import { INLINE_DIGEST_MAX_CHARS, createHashingPool } from '../../activities/cpu/hashing-pool.js';
import { createHashText } from '../../activities/tools/hash-text.js';
import { HASH_ALGORITHMS, MAX_TEXT_BYTES, type HashTextInput } from '../../domain/tools/hash-text.js';
import { findTool } from '../../domain/tools/catalogue.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';

// ===== Unit: the handler called directly, with a real hashing pool (no stack) =====

const pool = createHashingPool({ threads: 2 });
test.after.always(() => pool.close());
const hashText = createHashText({ hashing: pool });
const schemas = compileToolSchemas('hash-text');
const ctx = standaloneContext();

const TEXTS = {
  empty: '',
  ascii: 'The quick brown fox jumps over the lazy dog',
  unicode: 'Grüße, 世界! 🚀 café',
  'lone surrogate': 'a\ud800b',
  'near 1 MiB': 'x'.repeat(MAX_TEXT_BYTES - 3) + '€',
  // Short texts are digested on the calling thread, longer ones in the pool: both sides of the line.
  'the longest digested in place': 'é'.repeat(INLINE_DIGEST_MAX_CHARS),
  'the shortest digested in the pool': 'é'.repeat(INLINE_DIGEST_MAX_CHARS + 1),
};

for (const algorithm of HASH_ALGORITHMS) {
  test(`${algorithm} digests match node:crypto for empty, ASCII, unicode and 1 MiB text`, async (t) => {
    for (const [name, text] of Object.entries(TEXTS)) {
      const output = await hashText({ text, algorithm }, ctx);
      t.deepEqual(output, { algorithm, hash: createHash(algorithm).update(text, 'utf8').digest('hex') }, name);
      t.true(schemas.output(output), name);
    }
  });
}

test('known vectors: sha256 of "" and md5 of "abc"', async (t) => {
  t.is((await hashText({ text: '', algorithm: 'sha256' }, ctx)).hash, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  t.is((await hashText({ text: 'abc', algorithm: 'md5' }, ctx)).hash, '900150983cd24fb0d6963f7d28e17f72');
});

test('sha256 is the default algorithm', async (t) => {
  const input = validInput<HashTextInput>(t, schemas.input, { text: 'hello world' });
  t.is(input.algorithm, 'sha256');
  t.is((await hashText(input, ctx)).hash, 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9');
});

test('text of exactly 1 MiB of UTF-8 is hashed', async (t) => {
  const text = 'é'.repeat(MAX_TEXT_BYTES / 2);
  t.is((await hashText({ text, algorithm: 'sha1' }, ctx)).hash, createHash('sha1').update(text).digest('hex'));
});

test('text over 1 MiB of UTF-8 is 400 on /text, also when its character count is within maxLength', async (t) => {
  const ascii = 'a'.repeat(MAX_TEXT_BYTES + 1);
  await rejectsWith(t, hashText({ text: ascii, algorithm: 'sha256' }, ctx), 'validation_failed', '/text');
  const multibyte = '€'.repeat(400_000); // 400,000 characters, 1,200,000 bytes
  t.true(schemas.input({ text: multibyte }));
  const err = await rejectsWith(
    t,
    () => findTool('hash-text')!.precheck!({ text: multibyte, algorithm: 'sha256' }),
    'validation_failed',
    '/text',
  );
  t.regex(err.message, /1200000 bytes/);
});

test('an unknown algorithm is refused by the schema and, should one get past it, by the handler', async (t) => {
  t.false(schemas.input({ text: 'x', algorithm: 'sha3-256' }));
  await rejectsWith(t, hashText({ text: 'x', algorithm: 'sha3-256' as never }, ctx), 'validation_failed', '/algorithm');
});

/** The digest of "abc" under each algorithm (RFC 1321, FIPS 180): fixed here, not computed. */
const ABC_DIGESTS: Record<string, string> = {
  md5: '900150983cd24fb0d6963f7d28e17f72',
  sha1: 'a9993e364706816aba3e25717850c26c9cd0d89d',
  sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  sha512:
    'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
};

test('every algorithm the published schema offers is accepted, gives the known digest of "abc", and answers within the output schema', async (t) => {
  const offered = (schemas.input.schema as { properties: { algorithm: { enum: string[] } } }).properties.algorithm.enum;
  t.deepEqual([...offered].sort(), Object.keys(ABC_DIGESTS).sort(), 'each algorithm offered to clients has a known vector here');
  for (const algorithm of offered) {
    const output = await hashText(
      validInput<HashTextInput>(t, schemas.input, { text: 'abc', algorithm: algorithm as HashTextInput['algorithm'] }),
      ctx,
    );
    t.deepEqual(output, { algorithm, hash: ABC_DIGESTS[algorithm] }, algorithm);
    t.true(schemas.output(output), `${algorithm}: ${JSON.stringify(schemas.output.errors)}`);
  }
});

test('input schema: text required, no unknown fields, example valid', (t) => {
  t.false(schemas.input({}));
  t.false(schemas.input({ text: 'x', salt: 'y' }));
  t.false(schemas.input({ text: 42 }));
  const example = (schemas.input.schema as { examples: unknown[] }).examples[0];
  t.true(schemas.input(structuredClone(example)));
});
