//! The worker's count of single calls (activities/single-calls.ts), on a clock of the test's own:
//! busy while one runs and for the quiet window after the last one ended, whatever way it ended.
import test from 'ava';
import { createSingleCalls } from '../../activities/single-calls.js';

function clocked(quietMs: number) {
  let now = 0;
  const calls = createSingleCalls(() => now, quietMs);
  return { calls, advance: (ms: number) => (now += ms) };
}

test('quiet until a call runs; busy while it runs and until the window after it passes', async (t) => {
  const { calls, advance } = clocked(1_000);
  t.false(calls.busy());
  let end!: () => void;
  const running = calls.during(() => new Promise<string>((resolve) => (end = () => resolve('answer'))));
  t.true(calls.busy());
  advance(5_000);
  t.true(calls.busy(), 'a long call is busy all along');
  end();
  t.is(await running, 'answer', 'the step answers through it');
  advance(999);
  t.true(calls.busy());
  advance(1);
  t.false(calls.busy());
});

test('overlapping calls: busy until the last one ended; a call that threw ends too', async (t) => {
  const { calls, advance } = clocked(100);
  let endFirst!: () => void;
  const first = calls.during(() => new Promise<void>((resolve) => (endFirst = resolve)));
  const second = calls.during(async () => {
    throw new Error('tool failed');
  });
  await t.throwsAsync(second, { message: 'tool failed' });
  advance(1_000);
  t.true(calls.busy(), 'the first still runs');
  endFirst();
  await first;
  advance(99);
  t.true(calls.busy());
  advance(1);
  t.false(calls.busy());
});
