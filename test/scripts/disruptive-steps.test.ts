//! The disruptive phase runs its files in steps (ava.disruptive.config.mjs): each file of
//! test/disruptive/ in exactly one step, so none is left out of `npm test` or run twice.
import { readdirSync } from 'node:fs';
import test from 'ava';

const { STEPS } = (await import(new URL('../../ava.disruptive.config.mjs', import.meta.url).href)) as { STEPS: string[][] };

test('every disruptive file is in exactly one step, and every step names files that exist', (t) => {
  const files = readdirSync(new URL('../disruptive/', import.meta.url))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `test/disruptive/${f}`)
    .sort();
  const stepped = STEPS.flat();
  t.deepEqual([...stepped].sort(), files);
  t.is(new Set(stepped).size, stepped.length, 'no file in two steps');
  t.true(
    STEPS.every((step) => step.length > 0),
    'no empty step',
  );
});
