//! The run directories the test scripts keep under test-output/ (logs, a database, Temporal's file):
//! each run has its own, and only the newest few of a kind are kept. Node built-ins only.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

/** Earlier run directories kept for their logs; older ones are deleted (each holds a database). */
const KEEP_RUNS = 5;

/** A new run's directory, `<dir>/<prefix>-<time>`, after deleting all but the newest runs of that prefix. */
export function newRunDir(dir, prefix) {
  if (existsSync(dir)) {
    const runs = readdirSync(dir)
      .filter((name) => name.startsWith(`${prefix}-`))
      .sort();
    for (const name of runs.slice(0, Math.max(0, runs.length - KEEP_RUNS))) rmSync(path.join(dir, name), { recursive: true, force: true });
  }
  return path.join(dir, `${prefix}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
}
