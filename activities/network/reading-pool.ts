//! Worker threads that parse what the network tools fetched (see readings.ts for why). The
//! fetched bytes are copied to the thread; the reading, a few kilobytes of plain data, comes back.
import { fixedThreadPool } from '../../lib/thread-pool.js';
import { settleReading, type Reader, type ReadingOutcome } from './readings.js';
import type { ReadingTask } from './reading-thread.js';

export interface ReadingPool {
  read: Reader;
  /** Lets running readings finish, then stops the threads. */
  close(): Promise<void>;
}

/** The threads start once `startAfter` settles or at the first reading (at once without it). */
export function createReadingPool({ threads, startAfter }: { threads: number; startAfter?: Promise<unknown> }): ReadingPool {
  const piscina = fixedThreadPool(import.meta.url, 'reading-thread', threads, startAfter);
  return {
    // An aborted signal (the activity cancelled or past its deadline) stops the thread mid-parse.
    read: async (name, args, signal) => {
      const task: ReadingTask = { name, args };
      return settleReading(await piscina.run<ReadingOutcome>(task, { name: 'read', signal })) as never;
    },
    close: () => piscina.close(),
  };
}
