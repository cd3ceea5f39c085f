//! Calls flowing while something happens to the cluster (a rollout, a drain): one after another
//! until it is over, then a few more on what it left.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Answer } from '../../helpers/api.js';

/** Calls `call` back to back while `action` runs and five times more once it is done; every answer, in order. */
export async function callsDuring<A>(call: () => Promise<A>, action: () => Promise<void>): Promise<A[]> {
  const answers: A[] = [];
  let flowing = true;
  const caller = (async () => {
    while (flowing) answers.push(await call());
  })();
  try {
    await action();
    const settled = answers.length + 5;
    while (answers.length < settled) await sleep(200);
    return answers;
  } finally {
    flowing = false;
    await caller;
  }
}

/** A call's answer as a flowing call records it: 200, the status and problem code, or the error met on the way (a reset socket). */
export const answerOf = (call: Promise<Answer>): Promise<number | string> =>
  call.then(
    (res) => (res.status === 200 ? 200 : `${res.status} ${res.body?.code}`),
    (err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message,
  );
