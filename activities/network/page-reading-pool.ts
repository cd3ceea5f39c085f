//! Worker threads that parse and read fetched pages for web-scrape, seo-meta and broken-links
//! (see page-readings.ts for why). The page's bytes are copied to the thread; the reading, a
//! few kilobytes of plain data, comes back.
import { fixedThreadPool } from '../../lib/thread-pool.js';
import type { PageReader } from './page-readings.js';
import type { ReadingTask } from './page-thread.js';

export interface PageReadingPool {
  read: PageReader;
  /** Lets running readings finish, then stops the threads. */
  close(): Promise<void>;
}

export function createPageReadingPool({ threads }: { threads: number }): PageReadingPool {
  const piscina = fixedThreadPool(import.meta.url, 'page-thread', threads);
  return {
    // An aborted signal (the activity cancelled or past its deadline) stops the thread mid-parse.
    read: (name, args, signal) => piscina.run({ name, args } satisfies ReadingTask, { name: 'read', signal }),
    close: () => piscina.close(),
  };
}
