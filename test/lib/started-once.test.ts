//! A costly part started once: at its gate or at first use, never after it was stopped.
import test from 'ava';
import { startedOnce } from '../../lib/started-once.js';

const counter = () => {
  const c = { starts: 0, start: () => ++c.starts };
  return c;
};

test('without a gate it starts at once, and only once', (t) => {
  const c = counter();
  const part = startedOnce(c.start);
  t.is(c.starts, 1);
  t.is(part.get(), 1);
  t.is(c.starts, 1);
});

test('with a gate it starts when the gate opens, or earlier at first use', async (t) => {
  const gated = counter();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  startedOnce(gated.start, gate);
  t.is(gated.starts, 0);
  open();
  await gate;
  await Promise.resolve();
  t.is(gated.starts, 1);

  const used = counter();
  const part = startedOnce(used.start, new Promise(() => {}));
  t.is(part.get(), 1, 'first use starts it');
  t.is(used.starts, 1);
});

test('stopped before its gate opens, it never starts; stop returns what was started', async (t) => {
  const c = counter();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const part = startedOnce(c.start, gate);
  t.is(part.stop(), undefined);
  open();
  await gate;
  await Promise.resolve();
  t.is(c.starts, 0);
  t.throws(() => part.get());

  const started = startedOnce(counter().start);
  t.is(started.stop(), 1);
});
