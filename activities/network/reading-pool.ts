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

export function createReadingPool({ threads }: { threads: number }): ReadingPool {
  const piscina = fixedThreadPool(import.meta.url, 'reading-thread', threads);
  return {
    // An aborted signal (the activity cancelled or past its deadline) stops the thread mid-parse.
    read: async (name, args, signal) => {
      const task: ReadingTask = { name, args };
      return settleReading((await piscina.run(task, { name: 'read', signal })) as ReadingOutcome) as never;
    },
    close: () => piscina.close(),
  };
}
