//! When a (re)started worker has served the calls that queued while it was away: the moment its
//! costly tool processes may start without competing with that backlog for the cores.
import type { Worker } from '@temporalio/worker';
import { setTimeout as sleep } from 'node:timers/promises';

export interface CaughtUpOptions {
  /** Tasks in flight at or below this count as idle. @default 2 */
  idleAtMost?: number;
  /** Consecutive idle checks that say the backlog is served. @default 5 */
  checks?: number;
  /** Between checks, ms. @default 100 */
  everyMs?: number;
  /** Caught up at the latest after this long, ms, busy or not. @default 30000 */
  latestMs?: number;
  /** Ends the wait early (the worker shuts down). */
  signal?: AbortSignal;
}

/** Workflow tasks and local activities (ledger steps, short tools) the workers are running now. */
export function tasksInFlight(workers: Pick<Worker, 'getStatus'>[]): number {
  return workers.reduce((sum, w) => {
    const s = w.getStatus();
    return sum + s.numInFlightWorkflowActivations + s.numInFlightActivities;
  }, 0);
}

/** Resolves, with how long it waited, once the workers stayed (almost) idle for `checks` checks in a row. */
export async function caughtUp(workers: Pick<Worker, 'getStatus'>[], options: CaughtUpOptions = {}): Promise<number> {
  const { idleAtMost = 2, checks = 5, everyMs = 100, latestMs = 30_000, signal } = options;
  const began = performance.now();
  let idleChecks = 0;
  while (idleChecks < checks && performance.now() - began < latestMs && !signal?.aborted) {
    await sleep(everyMs, undefined, { signal }).catch(() => {});
    idleChecks = tasksInFlight(workers) <= idleAtMost ? idleChecks + 1 : 0;
  }
  return Math.round(performance.now() - began);
}
