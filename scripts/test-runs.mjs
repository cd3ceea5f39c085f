//! What the test scripts share: the run directories they keep under test-output/ (logs, a database,
//! Temporal's file: each run has its own, only the newest few of a kind are kept), and how a failed
//! install or build ends them. Node built-ins only.
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

/**
 * Runs an install or build step for the script named `label`: its result, or its message (with the
 * failed command's output, no stack trace) and exit 1.
 */
export function exitingOnFailure(label) {
  return async (step) => {
    try {
      return await step();
    } catch (err) {
      console.error(`${label}: ${err.message}`);
      process.exit(1);
    }
  };
}
