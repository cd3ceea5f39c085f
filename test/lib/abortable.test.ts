//! lib/abortable.ts: the caller stops waiting at the abort, and work that fails afterwards cannot end
//! the process as an unhandled rejection.
import test from 'ava';
import { abortable } from '../../lib/abortable.js';
import { unhandledDuring } from '../helpers/unhandled.js';

/** Work that fails only when told to, as a tool that notices its cancellation late does. */
function lateWork() {
  let fail!: (err: unknown) => void;
  const work = new Promise<string>((_, reject) => (fail = reject));
  return { work, fail };
}

test('the work answers when the signal stays quiet', async (t) => {
  t.is(await abortable(Promise.resolve('done'), new AbortController().signal), 'done');
});

test('a failure of the work reaches the caller while the signal stays quiet', async (t) => {
  await t.throwsAsync(abortable(Promise.reject(new Error('broke')), new AbortController().signal), { message: 'broke' });
});

test.serial('an abort ends the wait with its reason, and the work failing afterwards is not left unhandled', async (t) => {
  const controller = new AbortController();
  const { work, fail } = lateWork();
  const reason = new Error('cancelled');
  const unhandled = await unhandledDuring(async () => {
    const waiting = abortable(work, controller.signal);
    controller.abort(reason);
    t.is(await waiting.catch((err: unknown) => err), reason);
    fail(reason);
  });
  t.deepEqual(unhandled, []);
});

test.serial('a signal aborted before the wait began ends it at once, and the work failing afterwards is not left unhandled', async (t) => {
  const controller = new AbortController();
  const reason = new Error('cancelled');
  controller.abort(reason);
  const { work, fail } = lateWork();
  const unhandled = await unhandledDuring(async () => {
    t.is(await abortable(work, controller.signal).catch((err: unknown) => err), reason);
    fail(reason);
  });
  t.deepEqual(unhandled, []);
});
