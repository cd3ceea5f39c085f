//! argon2-verify: PHC strings of all three variants from the native argon2 package verify, wrong
//! passwords do not, unparsable and too-costly hashes are refused before any hashing, the schemas.
import test from 'ava';
import argon2 from 'argon2';
import { createArgon2Verify } from '../../activities/tools/argon2-verify.js';
import { createHashingPool } from '../../activities/cpu/hashing-pool.js';
import { ARGON2_LIMITS, parseArgon2Hash } from '../../domain/tools/argon2-verify.js';
import { findTool } from '../../domain/tools/catalogue.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';

// ===== Unit: the handler called directly, with a real hashing pool (no stack) =====

const pool = createHashingPool({ threads: 2 });
test.after.always(() => pool.close());
const argon2Verify = createArgon2Verify({ hashing: pool });
const schemas = compileToolSchemas('argon2-verify');
const ctx = standaloneContext();

/** A handler whose pool fails the test if reached: proves a refusal came before any hashing. */
const refusingBeforeWork = createArgon2Verify({
  hashing: {
    argon2Verify: () => {
      throw new Error('the pool must not be reached');
    },
  },
});

const VARIANTS = { argon2id: argon2.argon2id, argon2i: argon2.argon2i, argon2d: argon2.argon2d } as const;
/** Small costs keep the suite quick; one test below uses the usual m=64 MiB, t=3, p=4. */
const CHEAP = { memoryCost: 4096, timeCost: 2, parallelism: 2 };

for (const [variant, type] of Object.entries(VARIANTS)) {
  test(`native ${variant} hashes verify; wrong passwords do not`, async (t) => {
    for (const password of ['correct horse battery staple', 'pässwörd 🔑 漢字', 'x'.repeat(200)]) {
      const hash = await argon2.hash(password, { type, ...CHEAP });
      t.true(hash.startsWith(`$${variant}$v=19$`));
      const right = await argon2Verify(validInput(t, schemas.input, { password, hash }), ctx);
      t.deepEqual(right, { matches: true }, password);
      t.true(schemas.output(right));
      t.deepEqual(await argon2Verify({ password: password.slice(0, -1), hash }, ctx), { matches: false }, password);
      t.deepEqual(await argon2Verify({ password: password + 'x', hash }, ctx), { matches: false }, password);
    }
  });
}

test('cost parameters, salt and hash length are read from the hash', async (t) => {
  const hash = await argon2.hash('params', {
    type: argon2.argon2id,
    memoryCost: 65536,
    timeCost: 3,
    parallelism: 4,
    hashLength: 16,
    salt: Buffer.alloc(24, 7),
  });
  t.like(parseArgon2Hash(hash), { variant: 'argon2id', memoryKiB: 65536, iterations: 3, parallelism: 4, saltBytes: 24, hashBytes: 16 });
  t.deepEqual(await argon2Verify({ password: 'params', hash }, ctx), { matches: true });
  t.deepEqual(await argon2Verify({ password: 'Params', hash }, ctx), { matches: false });
});

test('parameters in reference order (m,t,p) verify as well as native order (m,p,t)', async (t) => {
  const native = await argon2.hash('order', { type: argon2.argon2i, ...CHEAP });
  t.regex(native, /\$m=4096,p=2,t=2\$/);
  const reference = native.replace('m=4096,p=2,t=2', 'm=4096,t=2,p=2');
  t.deepEqual(await argon2Verify({ password: 'order', hash: reference }, ctx), { matches: true });
});

test('an empty password is 400 on /password', async (t) => {
  const hash = await argon2.hash('x', { type: argon2.argon2id, ...CHEAP });
  t.false(schemas.input({ password: '', hash }));
  await rejectsWith(t, argon2Verify({ password: '', hash }, ctx), 'validation_failed', '/password');
});

const valid = '$argon2id$v=19$m=4096,t=2,p=2$c29tZXNhbHRzb21lc2FsdA$RdescudvJCsgt3ub+b+dWRWJTmaaJObG';
const MALFORMED = {
  empty: '',
  'not a hash': 'hunter2',
  'bcrypt hash': '$2b$10$502RjdF2vK2s3wxiY7q6tO4iHtz1.1jj.q.MQOJbG.vssttlX0aMO',
  'unknown variant': valid.replace('argon2id', 'argon2x'),
  'version 16': valid.replace('v=19', 'v=16'),
  'no version (the 1.0 format)': valid.replace('v=19$', ''),
  'unknown version': valid.replace('v=19', 'v=20'),
  'missing salt': valid.replace('$c29tZXNhbHRzb21lc2FsdA', ''),
  'salt under 8 bytes': valid.replace('c29tZXNhbHRzb21lc2FsdA', 'c2FsdA'),
  'salt not base64': valid.replace('c29tZXNhbHRzb21lc2FsdA', 'c29tZXNh_HRzb21lc2FsdA'),
  'salt of impossible base64 length': valid.replace('c29tZXNhbHRzb21lc2FsdA', 'c29tZXNhbHRzb'),
  'padded base64': valid + '==',
  'hash under 4 bytes': valid.replace('RdescudvJCsgt3ub+b+dWRWJTmaaJObG', 'AAA'),
  'parameter missing': valid.replace(',p=2', ''),
  'parameter twice': valid.replace('p=2', 'm=2'),
  'unknown parameter': valid.replace('p=2', 'p=2,keyid=abc'),
  'zero iterations': valid.replace('t=2', 't=0'),
  'zero lanes': valid.replace('p=2', 'p=0'),
  'memory under 8 KiB per lane': valid.replace('m=4096', 'm=15'),
  'parameter over 32 bits': valid.replace('m=4096', 'm=4294967296'),
  'trailing newline': valid + '\n',
};

test('unparsable hashes are 422 invalid_hash before any hashing', async (t) => {
  for (const [name, hash] of Object.entries(MALFORMED)) {
    t.true(schemas.input({ password: 'x', hash }), `the schema leaves "${name}" to the precheck`);
    const err = await rejectsWith(t, refusingBeforeWork({ password: 'x', hash }, ctx), 'invalid_hash');
    t.regex(err.message, /Argon2/, name);
    await rejectsWith(t, () => findTool('argon2-verify')!.precheck!({ password: 'x', hash }), 'invalid_hash');
  }
});

test('version 16 is refused with a message that says so', async (t) => {
  const err = await rejectsWith(t, refusingBeforeWork({ password: 'x', hash: valid.replace('v=19', 'v=16') }, ctx), 'invalid_hash');
  t.regex(err.message, /version 16 is not supported, only v=19/);
});

test('memory over 256 MiB, more than 10 iterations or 16 lanes are 422 hash_too_costly before any hashing', async (t) => {
  const over = {
    memory: valid.replace('m=4096', 'm=262145'),
    iterations: valid.replace('t=2', 't=11'),
    parallelism: valid.replace('p=2', 'p=17'),
    'all three': valid.replace('m=4096,t=2,p=2', 'm=4194304,t=100,p=64'),
  };
  for (const [name, hash] of Object.entries(over)) {
    const err = await rejectsWith(t, refusingBeforeWork({ password: 'x', hash }, ctx), 'hash_too_costly');
    t.deepEqual(err.extras.limits, ARGON2_LIMITS, name);
  }
  const all = await rejectsWith(
    t,
    () => findTool('argon2-verify')!.precheck!({ password: 'x', hash: over['all three'] }),
    'hash_too_costly',
  );
  t.regex(all.message, /memory m=4194304 KiB.*iterations t=100.*parallelism p=64/);
});

test('a hash exactly at the limits passes the precheck', (t) => {
  t.notThrows(() => findTool('argon2-verify')!.precheck!({ password: 'x', hash: valid.replace('m=4096,t=2,p=2', 'm=262144,t=10,p=16') }));
});

test('the usual parameters (m=64 MiB, t=3, p=4) verify, four at once', async (t) => {
  const hashes = await Promise.all(
    ['a', 'b', 'c', 'd'].map((p) => argon2.hash(p, { type: argon2.argon2id, memoryCost: 65536, timeCost: 3, parallelism: 4 })),
  );
  const results = await Promise.all(hashes.map((hash, i) => argon2Verify({ password: 'abcd'[i]!, hash }, ctx)));
  t.deepEqual(results, Array(4).fill({ matches: true }));
});

test('input schema: password and hash required, no unknown fields, example valid and matching', async (t) => {
  t.false(schemas.input({ password: 'x' }));
  t.false(schemas.input({ hash: valid }));
  t.false(schemas.input({ password: 'x', hash: valid, secret: 'y' }));
  const example = validInput(t, schemas.input, (schemas.input.schema as { examples: { password: string; hash: string }[] }).examples[0]!);
  t.deepEqual(await argon2Verify(example, ctx), { matches: true });
});
