//! A monitor's state machine, in one place: the state moves only on runs in a row (the alert's
//! `downAfter` failed runs make it down, as many runs that were not good make it degraded, `upAfter`
//! good runs make it up), and each move names the event it sends. A paused monitor stays paused
//! whatever its runs find. Pure.
import type { Alert } from './definition.js';
import type { MonitorEventKind, MonitorState, RunOutcome, Streaks } from './documents.js';

export interface Health {
  state: MonitorState;
  reason: string | null;
  streaks: Streaks;
}

export const FRESH_STREAKS: Streaks = { fail: 0, bad: 0, good: 0 };

/** The event a move from `from` to `to` sends: up only as a recovery (a first good run sends nothing). */
export function transitionEvent(from: MonitorState, to: MonitorState): MonitorEventKind | undefined {
  if (from === to) return undefined;
  if (to === 'down') return 'monitor.down';
  if (to === 'degraded') return 'monitor.degraded';
  if (to === 'up' && (from === 'down' || from === 'degraded')) return 'monitor.up';
  if (to === 'paused') return 'monitor.paused';
  return undefined;
}

/**
 * The health after a run that ended `outcome` (an `error` counts as failed), with `reason` saying
 * why it was not good; and the event the move sends, if the state moved.
 */
export function nextHealth(
  health: Health,
  outcome: RunOutcome,
  reason: string | null,
  alert: Pick<Alert, 'downAfter' | 'upAfter'>,
): { health: Health; event?: MonitorEventKind } {
  if (health.state === 'paused') return { health };
  const failed = outcome === 'fail' || outcome === 'error';
  const good = outcome === 'pass';
  const streaks: Streaks = {
    fail: failed ? health.streaks.fail + 1 : 0,
    bad: good ? 0 : health.streaks.bad + 1,
    good: good ? health.streaks.good + 1 : 0,
  };
  let state = health.state;
  if (streaks.fail >= alert.downAfter) state = 'down';
  else if (streaks.bad >= alert.downAfter) state = 'degraded';
  else if (streaks.good >= alert.upAfter) state = 'up';
  // A reason says why the monitor is not up; kept while the state holds, replaced by a newer one.
  const nextReason = state === 'up' || state === 'pending' ? null : state === health.state && !reason ? health.reason : reason;
  return { health: { state, reason: nextReason, streaks }, event: transitionEvent(health.state, state) };
}

/** Paused by a refusal of its runs (credits) or by a member: runs stop until it is resumed. */
export function pausedHealth(health: Health, reason: string): { health: Health; event?: MonitorEventKind } {
  if (health.state === 'paused') return { health };
  return { health: { state: 'paused', reason, streaks: FRESH_STREAKS }, event: 'monitor.paused' };
}

/** Resumed: judged afresh, as a new monitor is. */
export const resumedHealth = (): Health => ({ state: 'pending', reason: null, streaks: FRESH_STREAKS });
