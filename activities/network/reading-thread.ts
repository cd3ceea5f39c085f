//! The worker-thread side of reading-pool.ts: one reading of readings.ts per task.
import { runReading, type ReadingName, type ReadingOutcome } from './readings.js';

export interface ReadingTask {
  name: ReadingName;
  args: unknown[];
}

export function read({ name, args }: ReadingTask): Promise<ReadingOutcome> {
  return runReading(name, args);
}
