//! Monitors and runs as the account API, MCP and events show them. A diff image is shown as a
//! link the caller signs (the API: api/routes/monitors.ts), so only its key is known here.
import type { MonitorDoc, MonitorRunDoc } from './documents.js';
import { uptimeOf } from './uptime.js';

/** Makes the link to a diff image, from its key and the run's id; none: the run shows no link. */
export type DiffLinker = (diffKey: string, runId: string) => string;

export function runView(run: MonitorRunDoc, diffUrl?: DiffLinker) {
  const change = run.change && {
    paths: run.change.paths,
    ...(run.change.ratio !== undefined ? { ratio: run.change.ratio } : {}),
    ...(run.change.diffKey && diffUrl ? { diffUrl: diffUrl(run.change.diffKey, run._id) } : {}),
  };
  return {
    id: run._id,
    at: run.at.toISOString(),
    scheduledAt: run.scheduledAt ? run.scheduledAt.toISOString() : null,
    durationMs: run.durationMs,
    outcome: run.outcome,
    requestId: run._id,
    charged: run.charged,
    assertions: run.assertions,
    change,
    error: run.error,
    state: run.state,
  };
}

/** A run as an event carries it: what happened, without the diff link (which would expire in the event log). */
export function runSummary(run: MonitorRunDoc) {
  const { state: _state, ...view } = runView(run);
  return view;
}

/** What the monitor's owner chose: what it calls, how often, what it judges and whom it alerts. */
export function monitorDefinition(doc: MonitorDoc) {
  return {
    name: doc.name,
    tool: doc.tool,
    input: doc.input,
    schedule: doc.schedule,
    assertions: doc.assertions,
    alert: doc.alert,
    monthlyCreditLimit: doc.monthlyCreditLimit,
  };
}

/** The monitor as the API answers it; `nextRunAt` is Temporal's (null when paused or unknown). */
export function monitorView(doc: MonitorDoc, nextRunAt: Date | null, now = new Date()) {
  return {
    id: doc._id,
    ...monitorDefinition(doc),
    state: doc.state,
    stateReason: doc.stateReason,
    lastRunAt: doc.lastRun ? doc.lastRun.at.toISOString() : null,
    // Paused, it has none, whether or not its schedule has been told yet.
    nextRunAt: nextRunAt && doc.state !== 'paused' ? nextRunAt.toISOString() : null,
    uptime: uptimeOf(doc.hours, now),
    recentRuns: doc.recent.map((r) => ({ at: r.at.toISOString(), durationMs: r.durationMs, outcome: r.outcome })),
    createdAt: doc.createdAt.toISOString(),
  };
}

export type MonitorView = ReturnType<typeof monitorView>;
export type RunView = ReturnType<typeof runView>;
