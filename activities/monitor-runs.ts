//! The judgement of a monitor's run as a tool pool's worker makes it, in the run's own call step
//! (activities/call-step.ts) once the call is settled: the monitor judge (domain/monitors/judge.ts)
//! with this worker's database, blob stores, Temporal client (a refused run pauses its schedule),
//! the webhook fan-out and the mail outbox. Visual comparisons run on a thread started at the
//! first one, so only a pool whose monitors compare captures ever starts it.
import type { Db } from 'mongodb';
import type { Client } from '@temporalio/client';
import type { BlobStore } from '../lib/blob-store.js';
import { fixedThreadPool, type ThreadPool } from '../lib/thread-pool.js';
import { createEventRecorder, type EventSink } from '../domain/events/index.js';
import { createMailer } from '../domain/mail/index.js';
import type { ToolCallInput } from '../contracts/call.js';
import { createMonitorJudge, createMonitorSchedules, MONITOR_DIFFS_AREA, type MonitorRun } from '../domain/monitors/index.js';
import type { CompareTask } from './monitor-diff-thread.js';

export interface MonitorRunDeps {
  db: Db;
  client: Client;
  /** The store big outputs are in (a capture's answer is read back from it). */
  blobs: BlobStore;
  /** SECRET_KEY: seals the mails handed to the outbox. */
  secretKey: Buffer;
  /** PUBLIC_BASE_URL: the mails' links. */
  baseUrl: string;
  onEvent?: EventSink;
}

/** A thread started at the first comparison: a pool without visual monitors never starts it. */
const FIRST_USE = new Promise<never>(() => {});

export function createMonitorRuns(deps: MonitorRunDeps) {
  let threads: ThreadPool | undefined;
  const compare = (baseline: Uint8Array, current: Uint8Array, ignore: CompareTask['ignore']) => {
    threads ??= fixedThreadPool(import.meta.url, 'monitor-diff-thread', 1, FIRST_USE);
    return threads.run<{ ratio: number; diffPng: Uint8Array }>({ baseline, current, ignore } satisfies CompareTask, { name: 'compare' });
  };
  const judge = createMonitorJudge({
    db: deps.db,
    outputs: deps.blobs,
    diffs: deps.blobs.area(MONITOR_DIFFS_AREA),
    compare,
    schedules: createMonitorSchedules(deps.client),
    record: createEventRecorder(deps.db, deps.onEvent),
    mailer: createMailer({ client: deps.client, secretKey: deps.secretKey }),
    baseUrl: deps.baseUrl,
  });
  return {
    /** Whether the run goes ahead: a scheduled run is skipped while another of its monitor is under way. */
    begin: (requestId: string, call: ToolCallInput, at: Date, retried: boolean) => judge.begin(requestId, call, at, retried),
    /** `retried`: an earlier run of the step may have judged it. */
    record: (run: MonitorRun, retried: boolean) => judge.judge(run, retried),
    close: async () => {
      await threads?.close();
    },
  };
}

export type MonitorRuns = ReturnType<typeof createMonitorRuns>;
