//! Rejections nobody handled: Node ends a worker process on the first (see lib/abortable.ts).
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * The rejections left unhandled while `during` ran. Process-wide: tests that use it must run
 * serially, or another test's rejection is counted as theirs.
 */
export async function unhandledDuring(during: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const onUnhandled = (reason: unknown) => seen.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    await during();
    // Node reports an unhandled rejection once the microtasks of the turn it happened in are done.
    await nextTurn();
    await nextTurn();
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  return seen;
}
