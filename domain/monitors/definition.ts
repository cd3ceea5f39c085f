//! What a monitor is made of (its schedule, assertions and alert policy) and the checks a
//! definition passes before it is stored: what JSON Schema cannot say (an interval's minimum, a
//! cron expression, a time zone, a pointer's syntax, an operator's value, a visual check on a tool
//! that makes an image). Each problem names its field, as `invalid_request`'s `errors`. Pure.
import { ServiceError } from '../../contracts/errors.js';
import type { ToolDefinition } from '../tools/index.js';
import { cronProblem } from './cron.js';

/** `{ every: "<n>s|m|h" }`, or a cron expression read in `timezone` (UTC when absent). */
export type MonitorSchedule = { every: string } | { cron: string; timezone?: string };

/** Operators that compare the value at a pointer with the assertion's `value`. */
export const COMPARISONS = ['eq', 'ne', 'contains', 'not_contains', 'lt', 'lte', 'gt', 'gte', 'matches'] as const;
export type Comparison = (typeof COMPARISONS)[number];
/** Operators that report a change (fire `monitor.changed`) rather than fail a run. */
export const CHANGE_OPS = ['changed', 'visual_change'] as const;
export const ASSERTION_OPS = [...COMPARISONS, ...CHANGE_OPS] as const;
export type AssertionOp = (typeof ASSERTION_OPS)[number];

/** A rectangle of the image, in image pixels, that a visual comparison leaves out. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type Assertion =
  | { path: string; op: Comparison; value: unknown }
  | { path: string; op: 'changed' }
  | { path: string; op: 'visual_change'; threshold: number; ignore: Rect[] };

/** Who is told of a change of state, after how many runs, and how often again while down. */
export interface Alert {
  /** Failed (or degraded) runs in a row before the state becomes down (or degraded). */
  downAfter: number;
  /** Good runs in a row before a down or degraded monitor is up again. */
  upAfter: number;
  /** Members mailed: `owners` (every owner of the account) and user ids. */
  notify: string[];
  /** `<n>m|h`: `monitor.down` again this often while the monitor stays down; null: never. */
  remindEvery: string | null;
}

export const DEFAULT_ALERT: Alert = { downAfter: 2, upAfter: 1, notify: ['owners'], remindEvery: null };

/** The pointer of a run's own duration (the tool's run, in ms), beside the answer's fields. */
export const DURATION_PATH = '/durationMs';

/** The longest interval: a monitor that runs less than daily wants a cron expression. */
export const MAX_EVERY_S = 24 * 3600;
/** Reminders: at least this far apart, at most a week. */
const REMIND_MIN_S = 60;
const REMIND_MAX_S = 7 * 24 * 3600;
/** A regular expression of `matches`: long enough for a real pattern, short enough to read. */
export const MAX_PATTERN_LENGTH = 500;

export interface FieldError {
  field: string;
  message: string;
}

/** A definition that cannot run: 400 `invalid_request` naming every bad field. */
export function invalidRequest(errors: FieldError[]): ServiceError {
  const summary = errors.map((e) => `${e.field} ${e.message}`).join('; ');
  return new ServiceError('invalid_request', `The monitor is invalid: ${summary}.`, { errors });
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/** `90s`, `5m`, `1h` in seconds, for the units allowed; undefined for anything else. */
export function durationSeconds(text: string, units = 'smh'): number | undefined {
  const m = /^(\d{1,6})([smh])$/.exec(text);
  if (!m || !units.includes(m[2]!)) return undefined;
  return Number(m[1]) * UNIT_SECONDS[m[2]!]!;
}

/** Whether the runtime knows `zone` as an IANA time zone. */
function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export function scheduleProblems(schedule: MonitorSchedule, minIntervalS: number): FieldError[] {
  const given = schedule as Partial<Record<'every' | 'cron' | 'timezone', string>>;
  if ((given.every === undefined) === (given.cron === undefined))
    return [{ field: '/schedule', message: 'must have either every (an interval) or cron (an expression)' }];
  if (given.every !== undefined && given.timezone !== undefined) return [{ field: '/schedule/timezone', message: 'goes with cron only' }];
  if ('every' in schedule) {
    const seconds = durationSeconds(schedule.every);
    if (seconds === undefined) return [{ field: '/schedule/every', message: 'must be a number and a unit: s, m or h (as 30s, 5m, 1h)' }];
    if (seconds < minIntervalS) return [{ field: '/schedule/every', message: `must be at least ${minIntervalS}s` }];
    if (seconds > MAX_EVERY_S) return [{ field: '/schedule/every', message: 'must be at most 24h (use cron for less often)' }];
    return [];
  }
  const errors: FieldError[] = [];
  const problem = cronProblem(schedule.cron);
  if (problem) errors.push({ field: '/schedule/cron', message: problem });
  if (schedule.timezone !== undefined && !knownTimeZone(schedule.timezone))
    errors.push({ field: '/schedule/timezone', message: 'is not an IANA time zone (as Europe/Paris)' });
  return errors;
}

/** Whether `path` is a JSON pointer (RFC 6901): empty, or `/`-separated tokens whose `~` is `~0` or `~1`. */
export function isJsonPointer(path: string): boolean {
  return path === '' || (path.startsWith('/') && !/~[^01]|~$/.test(path));
}

/** The tools whose answer is an image a visual check can compare: their image field's pointer. */
export function imagePointer(tool: ToolDefinition): string | undefined {
  return tool.image ? `/${tool.image.field}` : undefined;
}

/** What is wrong with assertion `i` (as it came: fields checked by the schema, meaning checked here). */
function assertionProblems(a: Record<string, unknown>, i: number, tool: ToolDefinition, input: Record<string, unknown>): FieldError[] {
  const at = (field: string) => `/assertions/${i}/${field}`;
  const op = a.op as AssertionOp;
  const errors: FieldError[] = [];
  if (op === 'visual_change') {
    if (!imagePointer(tool)) errors.push({ field: at('op'), message: `visual_change compares images: ${tool.name} makes none` });
    else if (input.format !== undefined && input.format !== 'png')
      errors.push({ field: at('op'), message: 'visual_change compares png captures: leave input.format out or set it to png' });
    if (a.threshold === undefined) errors.push({ field: at('threshold'), message: 'is required for visual_change' });
    if (a.value !== undefined) errors.push({ field: at('value'), message: 'is not taken by visual_change' });
    return errors;
  }
  if (typeof a.path !== 'string') return [{ field: at('path'), message: 'is required' }];
  if (!isJsonPointer(a.path)) errors.push({ field: at('path'), message: 'must be a JSON pointer (as /status or /records/0)' });
  if (a.threshold !== undefined || a.ignore !== undefined)
    errors.push({ field: at(a.threshold !== undefined ? 'threshold' : 'ignore'), message: 'is taken by visual_change only' });
  if (op === 'changed') {
    if (a.value !== undefined) errors.push({ field: at('value'), message: 'is not taken by changed (it compares with the previous run)' });
    if (a.path === DURATION_PATH) errors.push({ field: at('path'), message: 'changed watches a field of the answer, not the duration' });
    return errors;
  }
  if (a.value === undefined) return [...errors, { field: at('value'), message: `is required for ${op}` }];
  if (['lt', 'lte', 'gt', 'gte'].includes(op) && typeof a.value !== 'number')
    errors.push({ field: at('value'), message: `must be a number for ${op}` });
  if (op === 'matches') {
    if (typeof a.value !== 'string' || a.value.length > MAX_PATTERN_LENGTH)
      errors.push({ field: at('value'), message: `must be a regular expression of at most ${MAX_PATTERN_LENGTH} characters` });
    else {
      try {
        new RegExp(a.value, 'u');
      } catch {
        errors.push({ field: at('value'), message: 'is not a valid regular expression' });
      }
    }
  }
  return errors;
}

/**
 * The assertions as stored: a visual check's pointer is its tool's image field, its `ignore` a list;
 * every problem first, as field errors.
 */
export function readAssertions(
  raw: Array<Record<string, unknown>>,
  tool: ToolDefinition,
  input: Record<string, unknown>,
): { assertions: Assertion[]; errors: FieldError[] } {
  const errors = raw.flatMap((a, i) => assertionProblems(a, i, tool, input));
  if (errors.length) return { assertions: [], errors };
  const assertions = raw.map((a): Assertion => {
    if (a.op === 'visual_change')
      return { path: imagePointer(tool)!, op: 'visual_change', threshold: a.threshold as number, ignore: (a.ignore as Rect[]) ?? [] };
    if (a.op === 'changed') return { path: a.path as string, op: 'changed' };
    return { path: a.path as string, op: a.op as Comparison, value: a.value };
  });
  return { assertions, errors };
}

/** The alert policy with its defaults, and what is wrong with it. */
export function readAlert(raw: Partial<Alert> | undefined): { alert: Alert; errors: FieldError[] } {
  const alert: Alert = { ...DEFAULT_ALERT, ...raw };
  const errors: FieldError[] = [];
  if (alert.remindEvery !== null) {
    const seconds = durationSeconds(alert.remindEvery, 'mh');
    if (seconds === undefined || seconds < REMIND_MIN_S || seconds > REMIND_MAX_S)
      errors.push({ field: '/alert/remindEvery', message: 'must be null or minutes or hours from 1m to 168h (as 30m, 2h)' });
  }
  return { alert, errors };
}
