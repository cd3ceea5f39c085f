//! bcrypt-verify: bcryptjs hashes of every prefix verify, wrong passwords do not, malformed and
//! too-costly hashes are refused before any hashing, the schemas.
import test from 'ava';
import bcryptjs from 'bcryptjs';
import { createBcryptVerify } from '../../activities/tools/bcrypt-verify.js';
import { createHashingPool } from '../../activities/cpu/hashing-pool.js';
import { findTool } from '../../domain/tools/catalogue.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';

// ===== Unit: the handler called directly, with a real hashing pool (no stack) =====

const pool = createHashingPool({ threads: 2 });
test.after.always(() => pool.close());
const bcryptVerify = createBcryptVerify({ hashing: pool });
const schemas = compileToolSchemas('bcrypt-verify');
const ctx = standaloneContext();

/** A handler whose pool fails the test if reached: proves a refusal came before any hashing. */
const refusingBeforeWork = createBcryptVerify({
  hashing: {
    bcryptVerify: () => {
      throw new Error('the pool must not be reached');
    },
  },
});

/** A bcryptjs hash with the given prefix: bcryptjs salts are $2b$, and it hashes with any of the three. */
function bcryptjsHash(password: string, prefix: '2a' | '2b' | '2y', cost = 4): string {
  return bcryptjs.hashSync(password, bcryptjs.genSaltSync(cost).replace(/^\$2b\$/, `$${prefix}$`));
}

for (const prefix of ['2a', '2b', '2y'] as const) {
  test(`bcryptjs $${prefix}$ hashes verify; wrong passwords do not`, async (t) => {
    for (const password of ['correct horse battery staple', 'pässwörd 🔑 漢字', '€'.repeat(24)]) {
      const hash = bcryptjsHash(password, prefix);
      t.true(hash.startsWith(`$${prefix}$`));
      const right = await bcryptVerify(validInput(t, schemas.input, { password, hash }), ctx);
      t.deepEqual(right, { matches: true }, password);
      t.true(schemas.output(right));
      t.deepEqual(await bcryptVerify({ password: password.slice(0, -1), hash }, ctx), { matches: false }, password);
      t.deepEqual(await bcryptVerify({ password: password.slice(0, -1) + 'Z', hash }, ctx), { matches: false }, password);
    }
  });
}

test('the cost is read from the hash (cost 12 verifies)', async (t) => {
  const hash = bcryptjsHash('twelve', '2b', 12);
  t.deepEqual(await bcryptVerify({ password: 'twelve', hash }, ctx), { matches: true });
});

test('a password over 72 UTF-8 bytes is 400 on /password, not truncated to match', async (t) => {
  // bcryptjs truncates silently: this hash "matches" any password sharing the first 72 bytes.
  const hash = bcryptjsHash('a'.repeat(80), '2b');
  await rejectsWith(t, bcryptVerify({ password: 'a'.repeat(80), hash }, ctx), 'validation_failed', '/password');
  await rejectsWith(t, bcryptVerify({ password: '€'.repeat(25), hash }, ctx), 'validation_failed', '/password');
  await rejectsWith(t, bcryptVerify({ password: '', hash }, ctx), 'validation_failed', '/password');
});

const valid = bcryptjsHash('x', '2b', 10);
const MALFORMED = {
  empty: '',
  'not a hash': 'hunter2',
  'unknown prefix $2x$': valid.replace('$2b$', '$2x$'),
  'old prefix $2$': valid.replace('$2b$', '$2$'),
  'argon2 string': '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG',
  'one character short': valid.slice(0, -1),
  'one character long': valid + 'a',
  'character outside the alphabet': valid.slice(0, -1) + '=',
  'cost below 4': valid.replace('$10$', '$03$'),
  'cost above 31': valid.replace('$10$', '$32$'),
  'one-digit cost': valid.replace('$10$', '$9$'),
  'surrounding space': ` ${valid}`,
};

test('malformed hashes are 422 invalid_hash before any hashing', async (t) => {
  for (const [name, hash] of Object.entries(MALFORMED)) {
    t.true(schemas.input({ password: 'x', hash }), `the schema leaves "${name}" to the precheck`);
    const err = await rejectsWith(t, refusingBeforeWork({ password: 'x', hash }, ctx), 'invalid_hash');
    t.regex(err.message, /bcrypt|cost/, name);
    await rejectsWith(t, () => findTool('bcrypt-verify')!.precheck!({ password: 'x', hash }), 'invalid_hash');
  }
});

test('hashes with cost 15 to 31 are 422 hash_too_costly before any hashing; 14 is accepted', async (t) => {
  for (const cost of ['15', '20', '31']) {
    const err = await rejectsWith(
      t,
      refusingBeforeWork({ password: 'x', hash: valid.replace('$10$', `$${cost}$`) }, ctx),
      'hash_too_costly',
    );
    t.regex(err.message, new RegExp(`cost ${cost}`));
  }
  t.notThrows(() => findTool('bcrypt-verify')!.precheck!({ password: 'x', hash: valid.replace('$10$', '$14$') }));
});

test('input schema: password and hash required, no unknown fields, example valid and matching', async (t) => {
  t.false(schemas.input({ password: 'x' }));
  t.false(schemas.input({ hash: valid }));
  t.false(schemas.input({ password: 'x', hash: valid, workFactor: 10 }));
  const example = validInput(t, schemas.input, (schemas.input.schema as { examples: { password: string; hash: string }[] }).examples[0]!);
  t.deepEqual(await bcryptVerify(example, ctx), { matches: true });
});
