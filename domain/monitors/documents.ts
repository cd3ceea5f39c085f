//! The documents of monitors: the monitor (its definition, its health and the last run's
//! judgement), its runs (kept 90 days) and the images a visual monitor compares.
import type { Binary, Collection } from 'mongodb';
import type { ErrorCode } from '../../contracts/errors.js';
import type { AuditDraft } from '../account-documents.js';
import type { Alert, Assertion, MonitorSchedule } from './definition.js';

declare module '../../lib/mongo.js' {
  /** Each collection of this file's documents (lib/mongo.ts names them). */
  interface Collections {
    monitors: Collection<MonitorDoc>;
    monitorRuns: Collection<MonitorRunDoc>;
    monitorImages: Collection<MonitorImagesDoc>;
  }
}

export const MONITOR_STATES = ['pending', 'up', 'down', 'degraded', 'paused'] as const;
export type MonitorState = (typeof MONITOR_STATES)[number];

/** How a run ended: `degraded` when only assertions on `/durationMs` failed, `error` when the call did not answer 200. */
export const RUN_OUTCOMES = ['pass', 'degraded', 'fail', 'error'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/** The kinds of event a monitor sends (contracts/event-kinds.ts lists them with the others). */
export type MonitorEventKind = 'monitor.down' | 'monitor.degraded' | 'monitor.up' | 'monitor.changed' | 'monitor.paused';

/** The counts the state moves on: runs in a row that failed, that were not good, that were good. */
export interface Streaks {
  fail: number;
  bad: number;
  good: number;
}

export interface AssertionResult {
  path: string;
  op: Assertion['op'];
  value?: unknown;
  /** What the answer held at `path` (the share of changed pixels for `visual_change`); null when absent. */
  actual: unknown;
  pass: boolean;
}

/** What a fired change assertion found: the share of pixels for a visual change, with its diff image's key. */
export interface RunChange {
  /** `changed`: the pointers whose values changed; `visual_change`: the share of changed pixels and the diff image. */
  paths: string[];
  ratio?: number;
  diffKey?: string;
}

/** A notice the run sent: an event recorded and mailed to the members the monitor names. */
export interface RunNotice {
  eventId: string;
  kind: MonitorEventKind;
  reason: string | null;
  /** A reminder of a state that did not change (alert.remindEvery). */
  reminder?: true;
}

export interface MonitorRunDoc {
  /** The run's call: its request id (workflow id). */
  _id: string;
  monitorId: string;
  accountId: string;
  /** When its step started. */
  at: Date;
  /** The time its schedule meant it for (absent for a run asked for now): what start lag is measured from. */
  scheduledAt?: Date;
  /** The tool's run, all attempts (0 when the call was refused before running it). */
  durationMs: number;
  outcome: RunOutcome;
  /** Credits charged: the tool's cost when it answered 200, else 0. */
  charged: number;
  assertions: AssertionResult[];
  change: RunChange | null;
  /** The refusal or the tool's error, when the call did not answer 200. */
  error: { code: ErrorCode; message: string } | null;
  /** The monitor's state after this run was judged. */
  state: MonitorState;
  notices: RunNotice[];
}

export interface MonitorDoc {
  /** `mon_...` */
  _id: string;
  accountId: string;
  name: string;
  tool: string;
  /** The tool's input as validated, defaults applied. */
  input: Record<string, unknown>;
  schedule: MonitorSchedule;
  assertions: Assertion[];
  alert: Alert;
  /** Credits its runs may spend per calendar month (UTC), held as a key's limit is; null: no cap. */
  monthlyCreditLimit: number | null;
  state: MonitorState;
  stateReason: string | null;
  streaks: Streaks;
  /** The values of the `changed` assertions' pointers in the last run that answered, by pointer. */
  previous: Record<string, unknown>;
  /** Indices of the visual assertions whose change fired and has not gone back or been accepted. */
  changedVisuals: number[];
  /** The run whose capture is the visual baseline (null until there is one): a comparison with another is stale. */
  baselineRunId: string | null;
  /** Runs per hour (`<epoch hour>`: [runs, good runs]), the last 30 days: uptime is read from them. */
  hours: Record<string, [number, number]>;
  /** The last runs, oldest first (at most 30): the latency line of the monitor's list. */
  recent: Array<{ at: Date; durationMs: number; outcome: RunOutcome }>;
  /** The last run judged (its `_id` tells a retried judgement it was done). */
  lastRun: MonitorRunDoc | null;
  /** When the current state was last notified (its change, or a reminder). */
  notifiedAt: Date | null;
  /**
   * The scheduled run under way, taken by its step before it calls the tool and given back by its
   * judgement: a run due while another holds it is skipped (store.ts `lease`). Held until `until`
   * at most, so a run whose worker was lost never stops the monitor's next ones.
   */
  running?: { runId: string; until: Date } | null;
  /** Bumped by every write that changes the state, so two judgements (or a judgement and a pause) never interleave. */
  seq: number;
  createdAt: Date;
  updatedAt: Date;
  auditDrafts?: AuditDraft[];
}

/** A visual monitor's images: the baseline runs are compared with, and the latest capture (what an accepted baseline becomes). */
export interface MonitorImagesDoc {
  /** The monitor's id. */
  _id: string;
  accountId: string;
  baseline: { png: Binary; runId: string; at: Date } | null;
  latest: { png: Binary; runId: string; at: Date } | null;
}
