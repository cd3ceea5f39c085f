//! A worker process's health, as its operator port's `/healthz` answers it (lib/operator-port.ts):
//! its workers poll their queues, Temporal answers over its connection, and its warm processes
//! (a browser, a document converter) are up where its pools have them. A worker that lost
//! Temporal or its browser otherwise looks alive: its process runs and its metrics answer.
import type { NativeConnection, Worker } from '@temporalio/worker';
import { HEALTH_CHECK_MS, type HealthCheck } from '../lib/operator-port.js';

/** What the checks read; filled in as the process starts (`starting` until then). */
export interface WorkerHealthState {
  connection?: NativeConnection;
  /** Each worker with the task queue it polls. */
  workers?: Array<{ worker: Worker; taskQueue: string }>;
  /** A pool's warm processes by name (`browser`, `converter`). */
  warmth?: Record<string, () => Promise<string | null>>;
}

/** Temporal answers this process's connection (its frontend, within the check's time). */
async function temporalAnswers(connection: NativeConnection): Promise<string | null> {
  try {
    await connection.withDeadline(Date.now() + HEALTH_CHECK_MS, () => connection.workflowService.getSystemInfo({}));
    return null;
  } catch (err) {
    return `unreachable (${((err as Error).message ?? String(err)).split('\n')[0]})`;
  }
}

/** The checks now: Temporal, polling, and each warm process the pools have. */
export function workerHealthChecks(state: WorkerHealthState): Record<string, HealthCheck> {
  return {
    temporal: async () => (state.connection ? temporalAnswers(state.connection) : 'not connected yet'),
    polling: async () => {
      if (!state.workers) return 'starting';
      const idle = state.workers.filter((w) => w.worker.getState() !== 'RUNNING');
      return idle.length === 0
        ? null
        : `not polling: ${idle.map((w) => `${w.taskQueue} (${w.worker.getState().toLowerCase()})`).join(', ')}`;
    },
    ...state.warmth,
  };
}
