//! Monitors: a catalogue tool run on a Temporal Schedule, each run an ordinary call judged by its
//! assertions, the monitor's state moved on runs in a row, its notices sent as events and mail.
//! `service.ts` is what the account API and MCP do; `judge.ts` what a run's call step does once
//! the call is settled; `views.ts` how both show them.
export { createMonitorService, type MonitorService } from './service.js';
export {
  createMonitorJudge,
  type CompareCaptures,
  type MonitorJudge,
  type MonitorRun,
  type RunStart,
} from './judge.js';
export { createMonitorSchedules, scheduleIdOf, type MonitorSchedules } from './schedules.js';
export { createMonitorStore, MONITOR_DIFFS_AREA, RUN_RETENTION_MS } from './store.js';
export {
  Monitor,
  MonitorAssertionResult,
  MonitorRunSummary,
  MonitorRunView,
  MonitorState,
  RunDuration,
  RunOutcome,
  monitorView,
  runView,
  type DiffLinker,
  type MonitorView,
  type RunSummary,
  type RunView,
} from './views.js';
export { CreateMonitorBody, UpdateMonitorBody, type MonitorBody } from './body-schema.js';
export { invalidRequest, ASSERTION_OPS, COMPARISONS, DEFAULT_ALERT, DURATION_PATH, MAX_EVERY_S, MAX_PATTERN_LENGTH } from './definition.js';
export { MONITOR_STATES, RUN_OUTCOMES } from './documents.js';
export { CRON_JITTER_MS } from './schedules.js';
export { RECENT_RUNS } from './verdict.js';
export { UPTIME_WINDOWS } from './uptime.js';
export type { Rect } from './definition.js';
