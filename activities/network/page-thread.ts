//! The worker-thread side of page-reading-pool.ts: one reading of page-readings.ts per task.
import { runReading, type ReadingName } from './page-readings.js';

export interface ReadingTask {
  name: ReadingName;
  args: unknown[];
}

export function read({ name, args }: ReadingTask): unknown {
  return runReading(name, args);
}
