//! Items sent one batch at a time per key (lib/keyed-batches.ts): a lone item goes at once and
//! alone, what arrives meanwhile goes together in the next send, in order, capped; a failed send
//! fails its own items only; keys do not wait for one another.
import test from 'ava';
import { createKeyedBatches } from '../../lib/keyed-batches.js';

/** A send the test ends by hand, recording what each send carried. */
function recordingSend() {
  const sent: Array<{ key: string; items: number[] }> = [];
  const open: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  const send = (key: string, items: number[]) =>
    new Promise<void>((resolve, reject) => {
      sent.push({ key, items: [...items] });
      open.push({ resolve, reject });
    });
  /** Lets the oldest open send finish, then lets the next one begin. */
  const finish = async (err?: Error) => {
    const s = open.shift()!;
    if (err) s.reject(err);
    else s.resolve();
    await new Promise((r) => setImmediate(r));
  };
  return { sent, open, send, finish };
}

test('a lone item is sent at once, alone', async (t) => {
  const r = recordingSend();
  const batches = createKeyedBatches(r.send, 10);
  const done = batches.add('a', 1);
  t.deepEqual(r.sent, [{ key: 'a', items: [1] }], 'sent before anything else happened');
  await r.finish();
  await done;
});

test('items arriving while a send is on its way go together in the next send, in order, at most maxItems each', async (t) => {
  const r = recordingSend();
  const batches = createKeyedBatches(r.send, 3);
  const all = [1, 2, 3, 4, 5, 6].map((n) => batches.add('a', n));
  t.is(r.sent.length, 1);
  await r.finish();
  t.deepEqual(r.sent.at(-1), { key: 'a', items: [2, 3, 4] });
  await r.finish();
  t.deepEqual(r.sent.at(-1), { key: 'a', items: [5, 6] });
  const late = batches.add('a', 7); // joins no batch already on its way
  await r.finish();
  t.deepEqual(r.sent.at(-1), { key: 'a', items: [7] });
  await r.finish();
  await Promise.all([...all, late]);
  t.is(r.open.length, 0);
});

test('a failed send rejects its own items only; the next batch still goes', async (t) => {
  const r = recordingSend();
  const batches = createKeyedBatches(r.send, 10);
  const first = batches.add('a', 1);
  const second = batches.add('a', 2);
  const third = batches.add('a', 3);
  await r.finish(new Error('unavailable'));
  await t.throwsAsync(first, { message: 'unavailable' });
  t.deepEqual(r.sent.at(-1), { key: 'a', items: [2, 3] });
  await r.finish();
  await Promise.all([second, third]);
});

test('each key has its own line: one key waiting does not hold another', async (t) => {
  const r = recordingSend();
  const batches = createKeyedBatches(r.send, 10);
  void batches.add('a', 1);
  void batches.add('a', 2);
  const b = batches.add('b', 3);
  t.deepEqual(r.sent, [
    { key: 'a', items: [1] },
    { key: 'b', items: [3] },
  ]);
  r.open[1]!.resolve();
  await b;
  t.is(r.sent.length, 2, "a's second item still waits for a's first send");
});
