//! bcrypt-hash: hashes that bcryptjs verifies, the 72-byte and work-factor limits, the schemas,
//! and the pool that keeps the caller's event loop free while it hashes.
import test from 'ava';
import bcryptjs from 'bcryptjs';
import { createBcryptHash } from '../../activities/tools/bcrypt-hash.js';
import { createHashingPool } from '../../activities/cpu/hashing-pool.js';
import type { BcryptHashInput } from '../../domain/tools/bcrypt-hash.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';

// ===== Unit: the handler called directly, with a real hashing pool (no stack) =====

const pool = createHashingPool({ threads: 2 });
test.after.always(() => pool.close());
const bcryptHash = createBcryptHash({ hashing: pool });
const schemas = compileToolSchemas('bcrypt-hash');
const ctx = standaloneContext();

const BCRYPT_2A = /^\$2a\$(\d\d)\$[./A-Za-z0-9]{53}$/;

test('the hash verifies with bcryptjs; a wrong password does not', async (t) => {
  for (const password of ['correct horse battery staple', 'pässwörd 🔑 漢字', 'x']) {
    const output = await bcryptHash({ password, workFactor: 4 }, ctx);
    t.true(schemas.output(output));
    t.regex(output.hash, BCRYPT_2A);
    t.true(await bcryptjs.compare(password, output.hash), password);
    t.false(await bcryptjs.compare(password + '!', output.hash), password);
  }
});

test('work factor defaults to 11 and is embedded in the hash', async (t) => {
  const input = validInput<BcryptHashInput>(t, schemas.input, { password: 'secret' });
  t.is(input.workFactor, 11);
  const { hash } = await bcryptHash(input, ctx);
  t.is(BCRYPT_2A.exec(hash)?.[1], '11');
  t.true(await bcryptjs.compare('secret', hash));
});

test('each hash has a fresh salt', async (t) => {
  const [a, b] = await Promise.all([
    bcryptHash({ password: 'same', workFactor: 4 }, ctx),
    bcryptHash({ password: 'same', workFactor: 4 }, ctx),
  ]);
  t.not(a.hash, b.hash);
});

test('a password of exactly 72 UTF-8 bytes is hashed whole', async (t) => {
  const password = '€'.repeat(24); // 3 bytes each
  const { hash } = await bcryptHash({ password, workFactor: 4 }, ctx);
  t.true(await bcryptjs.compare(password, hash));
  t.false(await bcryptjs.compare('€'.repeat(23), hash));
});

test('a password over 72 UTF-8 bytes is 400 on /password, never truncated', async (t) => {
  await rejectsWith(t, bcryptHash({ password: 'a'.repeat(73), workFactor: 4 }, ctx), 'validation_failed', '/password');
  // 25 characters pass the schema's maxLength but are 75 bytes: the precheck catches them.
  const password = '€'.repeat(25);
  t.true(schemas.input({ password }));
  const err = await rejectsWith(t, bcryptHash({ password, workFactor: 4 }, ctx), 'validation_failed', '/password');
  t.regex(err.message, /75 bytes/);
  t.regex(err.message, /72 bytes/);
});

test('an empty password is 400 on /password', async (t) => {
  t.false(schemas.input({ password: '' }));
  await rejectsWith(t, bcryptHash({ password: '', workFactor: 4 }, ctx), 'validation_failed', '/password');
});

test('a work factor outside 4-14 or not an integer is 400 on /workFactor', async (t) => {
  for (const workFactor of [3, 15, 31, 10.5]) {
    t.false(schemas.input({ password: 'x', workFactor }), String(workFactor));
    await rejectsWith(t, bcryptHash({ password: 'x', workFactor }, ctx), 'validation_failed', '/workFactor');
  }
});

test('input schema: password required, no unknown fields, example valid', (t) => {
  t.false(schemas.input({}));
  t.false(schemas.input({ password: 'x', salt: 'y' }));
  const { examples } = schemas.input.schema as { examples: unknown[] };
  t.true(schemas.input(structuredClone(examples[0])));
  t.true(schemas.output((schemas.output.schema as { examples: unknown[] }).examples[0]));
});

// ----- The pool itself: off-thread work, cancellation. Serial (ava runs these first, alone), so
// bcryptjs in the tests above, which runs on this thread, cannot add gaps of its own. -----

test.serial("the caller's event loop keeps ticking while a cost-14 bcrypt runs in the pool", async (t) => {
  const ticks: number[] = [];
  const timer = setInterval(() => ticks.push(performance.now()), 10);
  const started = performance.now();
  const { hash } = await bcryptHash({ password: 'tick', workFactor: 14 }, ctx);
  const elapsed = performance.now() - started;
  clearInterval(timer);
  t.regex(hash, /^\$2a\$14\$/);
  const gaps = ticks.slice(1).map((at, i) => at - ticks[i]!);
  const longest = Math.max(...gaps);
  t.log(`cost 14 took ${elapsed.toFixed(0)} ms; ${ticks.length} ticks, longest gap ${longest.toFixed(0)} ms`);
  // A hash on this thread would give no tick at all for the whole second or more.
  t.true(elapsed > 500, 'cost 14 should take well over half a second');
  t.true(ticks.length >= 3, `${ticks.length} ticks in ${elapsed.toFixed(0)} ms`);
  // On this thread the hash would be one gap as long as itself; judged against it, not a fixed
  // bound, so that a loaded machine's scheduling pauses do not read as blocking.
  t.true(longest < elapsed / 2, `longest gap ${longest.toFixed(0)} ms of ${elapsed.toFixed(0)} ms`);
});

test.serial('an aborted call stops its hash at once and the pool keeps serving', async (t) => {
  // "At once" is judged against the same hash run to its end just before, on this machine now.
  const full = performance.now();
  await bcryptHash({ password: 'slow', workFactor: 14 }, ctx);
  const fullMs = performance.now() - full;
  const controller = new AbortController();
  const running = bcryptHash({ password: 'slow', workFactor: 14 }, standaloneContext('abort', controller.signal));
  setTimeout(() => controller.abort(), 50);
  const started = performance.now();
  const err = await t.throwsAsync(running);
  t.is(err?.name, 'AbortError');
  const abortedMs = performance.now() - started;
  t.true(abortedMs < fullMs / 2, `ended ${abortedMs.toFixed(0)} ms after the abort; the whole hash takes ${fullMs.toFixed(0)} ms`);
  const { hash } = await bcryptHash({ password: 'after', workFactor: 4 }, ctx);
  t.true(await bcryptjs.compare('after', hash));
});
