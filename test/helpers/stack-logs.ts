//! The test stack's log files (STACK_LOG_DIR), read as an operator would grep them.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { UncheckedJson } from './api.js';
import { testEnv } from './env.js';
import { eventually } from './webhook-receiver.js';

/** The first JSON log line of any stack process naming `requestId` with message `msg`, waited for (lines are flushed as they come). */
export function stackLogLine(requestId: string, msg: string): Promise<Record<string, UncheckedJson>> {
  const dir = testEnv.stackLogDir();
  return eventually(
    async () => {
      for (const file of (await readdir(dir)).filter((f) => f.endsWith('.log'))) {
        for (const text of (await readFile(path.join(dir, file), 'utf8')).split('\n')) {
          if (text.includes(requestId) && text.includes(`"${msg}"`)) return JSON.parse(text) as Record<string, UncheckedJson>;
        }
      }
      return undefined;
    },
    (found) => found !== undefined,
    30_000,
    `the log line "${msg}" for ${requestId}`,
  ) as Promise<Record<string, UncheckedJson>>;
}
