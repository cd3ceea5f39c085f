//! What one run does to its monitor, decided on the monitor as read: the run's record, the new
//! health and its notices (a change of state, a fired change, a reminder while down), the values a
//! `changed` assertion compares with next, and the run counted toward uptime. The judge
//! (judge.ts) writes it only if the monitor did not change meanwhile. Pure.
import { derivedId } from '../../lib/ids.js';
import type { ToolCallResult } from '../../contracts/call.js';
import { judgeAnswer } from './assertions.js';
import { durationSeconds } from './definition.js';
import type { MonitorDoc, MonitorRunDoc, RunChange, RunNotice, RunOutcome } from './documents.js';
import { nextHealth, pausedHealth, type Health } from './states.js';
import { countRun, countsForUptime } from './uptime.js';

/** Runs kept on the monitor for its latency line. */
export const RECENT_RUNS = 30;

/** A run as its step reports it: its call, how the call ended, when its step began and how long the tool took. */
export interface RunReport {
  requestId: string;
  result: ToolCallResult;
  at: Date;
  durationMs: number;
  scheduledAt?: Date;
  charged: number;
}

/**
 * What the visual comparisons of a run found: each visual assertion's share of changed pixels and
 * its diff image's key, and the baseline compared with (the run whose capture it is); or that this
 * run's capture became the baseline, there being none.
 */
export interface VisualFindings {
  ratios: ReadonlyMap<number, number>;
  diffKeys: ReadonlyMap<number, string>;
  baselineRunId?: string;
}

export const NO_VISUAL_FINDINGS: VisualFindings = { ratios: new Map(), diffKeys: new Map() };

/** Why the service pauses a monitor whose run it refused, by the refusal's code. */
export const PAUSE_REASONS: Partial<Record<string, string>> = {
  insufficient_credits: 'insufficient_credits',
  key_credit_limit: 'monitor_credit_limit',
};

export interface Decision {
  run: MonitorRunDoc;
  set: Partial<MonitorDoc>;
}

/** The change a run reports: the pointers that changed and the visual checks that fired, with the first one's image. */
function changeOf(monitor: MonitorDoc, changedPaths: string[], fired: number[], visual: VisualFindings): RunChange | null {
  if (!changedPaths.length && !fired.length) return null;
  const first = fired[0];
  return {
    paths: [...changedPaths, ...fired.map((i) => monitor.assertions[i]!.path)],
    ...(first !== undefined ? { ratio: Math.max(...fired.map((i) => visual.ratios.get(i)!)) } : {}),
    ...(first !== undefined && visual.diffKeys.has(first) ? { diffKey: visual.diffKeys.get(first)! } : {}),
  };
}

/** Whether a down monitor is due a reminder at `now`. */
function reminderDue(monitor: MonitorDoc, now: Date): boolean {
  if (monitor.state !== 'down' || !monitor.alert.remindEvery || !monitor.notifiedAt) return false;
  return now.getTime() - monitor.notifiedAt.getTime() >= durationSeconds(monitor.alert.remindEvery, 'mh')! * 1000;
}

export function decide(monitor: MonitorDoc, report: RunReport, output: unknown, visual: VisualFindings, now: Date): Decision {
  const { result } = report;
  const notice = (kind: RunNotice['kind'], reason: string | null, reminder = false): RunNotice => ({
    eventId: derivedId('evt', `${report.requestId}:${kind}`),
    kind,
    reason,
    ...(reminder ? { reminder: true as const } : {}),
  });
  const health: Health = { state: monitor.state, reason: monitor.stateReason, streaks: monitor.streaks };
  let outcome: RunOutcome = 'error';
  let reason: string | null = null;
  let assertions: MonitorRunDoc['assertions'] = [];
  let change: RunChange | null = null;
  let previous = monitor.previous;
  let changedVisuals = monitor.changedVisuals;
  // Compared with a baseline replaced meanwhile (a member accepted another): the comparison says nothing now.
  const stale = visual.baselineRunId !== undefined && monitor.baselineRunId !== null && visual.baselineRunId !== monitor.baselineRunId;
  const ratios = stale ? new Map<number, number>() : visual.ratios;
  if (result.ok) {
    const judged = judgeAnswer(monitor.assertions, { output, durationMs: report.durationMs }, monitor.previous, ratios);
    ({ outcome, reason } = judged);
    assertions = judged.results;
    previous = judged.previous;
    // A visual change fires once, when it first passes its threshold, until it goes back or a new baseline is accepted.
    const fired = judged.visualOver.filter((i) => !monitor.changedVisuals.includes(i));
    if (!stale) changedVisuals = judged.visualOver;
    change = changeOf(monitor, judged.changedPaths, fired, visual);
  } else reason = `${result.error.code}: ${result.error.message}`;

  const pauseFor = result.ok ? undefined : PAUSE_REASONS[result.error.code];
  const moved = pauseFor ? pausedHealth(health, pauseFor) : nextHealth(health, outcome, reason, monitor.alert);
  const notices: RunNotice[] = [];
  if (moved.event) notices.push(notice(moved.event, moved.health.reason));
  else if (moved.health.state === 'down' && reminderDue(monitor, now)) notices.push(notice('monitor.down', moved.health.reason, true));
  if (change) notices.push(notice('monitor.changed', `changed: ${change.paths.join(', ')}`));

  const run: MonitorRunDoc = {
    _id: report.requestId,
    monitorId: monitor._id,
    accountId: monitor.accountId,
    at: report.at,
    ...(report.scheduledAt ? { scheduledAt: report.scheduledAt } : {}),
    durationMs: report.durationMs,
    outcome,
    charged: report.charged,
    assertions,
    change,
    error: result.ok ? null : { code: result.error.code, message: result.error.message },
    state: moved.health.state,
    notices,
  };
  const notified = notices.some((n) => n.kind !== 'monitor.changed');
  const counted = countsForUptime(outcome, result.ok ? undefined : result.error.code);
  return {
    run,
    set: {
      state: moved.health.state,
      stateReason: moved.health.reason,
      streaks: moved.health.streaks,
      previous,
      changedVisuals,
      baselineRunId: stale ? monitor.baselineRunId : (visual.baselineRunId ?? monitor.baselineRunId),
      hours: counted ? countRun(monitor.hours, report.at, outcome === 'pass' || outcome === 'degraded') : monitor.hours,
      lastRun: run,
      recent: [...monitor.recent, { at: report.at, durationMs: report.durationMs, outcome }].slice(-RECENT_RUNS),
      notifiedAt: notified ? now : monitor.notifiedAt,
    },
  };
}
