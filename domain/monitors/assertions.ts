//! Judging a run's answer with its monitor's assertions: each pointer read from the tool's 200
//! answer (or the run's own duration), compared, and the run's outcome from the results. Change
//! assertions never fail a run: `changed` fires when its value differs from the previous answer's,
//! `visual_change` (its share of changed pixels measured by the caller) when it passes its
//! threshold. Pure.
import { canonicalJson } from '../../lib/canonical-json.js';
import { CHANGE_OPS, DURATION_PATH, type Assertion, type Comparison } from './definition.js';
import type { AssertionResult, RunOutcome } from './documents.js';

/** `matches` reads this much of a long text: a pattern on a 5 MiB body would hold the worker. */
const MATCH_SUBJECT_MAX = 100_000;

/** The value at a JSON pointer (RFC 6901) of `doc`; undefined when there is none. */
export function resolvePointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let here: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(here)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      here = here[Number(token)];
    } else if (here !== null && typeof here === 'object' && Object.hasOwn(here, token)) {
      here = (here as Record<string, unknown>)[token];
    } else return undefined;
  }
  return here;
}

const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);

/** Whether `actual` stands in relation `op` to `value` (a missing value fails every comparison but `ne` and `not_contains`). */
export function compare(op: Comparison, actual: unknown, value: unknown): boolean {
  switch (op) {
    case 'eq':
      return actual !== undefined && same(actual, value);
    case 'ne':
      return !same(actual, value);
    case 'contains':
      return contains(actual, value);
    case 'not_contains':
      return !contains(actual, value);
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      return typeof actual === 'number' && typeof value === 'number' && ordered(op, actual, value);
    case 'matches':
      return typeof actual === 'string' && new RegExp(value as string, 'u').test(actual.slice(0, MATCH_SUBJECT_MAX));
  }
}

function ordered(op: 'lt' | 'lte' | 'gt' | 'gte', a: number, b: number): boolean {
  return op === 'lt' ? a < b : op === 'lte' ? a <= b : op === 'gt' ? a > b : a >= b;
}

/** A text holds a text; a list holds an element equal to the value; an object holds a key. */
function contains(actual: unknown, value: unknown): boolean {
  if (typeof actual === 'string') return typeof value === 'string' && actual.includes(value);
  if (Array.isArray(actual)) return actual.some((x) => same(x, value));
  if (actual !== null && typeof actual === 'object') return typeof value === 'string' && Object.hasOwn(actual, value);
  return false;
}

/** An actual value as a run keeps it: long texts and big values cut, so a run stays small. */
export function shownValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'string') return value.length > 200 ? `${value.slice(0, 200)}…` : value;
  const json = JSON.stringify(value);
  return json.length > 1000 ? `${json.slice(0, 1000)}…` : value;
}

export interface Judgement {
  results: AssertionResult[];
  outcome: RunOutcome;
  /** Pointers of `changed` assertions whose value changed. */
  changedPaths: string[];
  /** Indices of the visual assertions past their threshold. */
  visualOver: number[];
  /** Values of the `changed` pointers in this answer: the next run compares with them. */
  previous: Record<string, unknown>;
  /** What failed, for the state's reason (the first failing assertion). */
  reason: string | null;
}

/**
 * The results of `assertions` on a 200 answer. `previous`: the `changed` pointers' values of the
 * last answer; `visualRatios`: each visual assertion's measured share, by index (absent when there
 * was nothing to compare with yet: the first capture is the baseline).
 */
export function judgeAnswer(
  assertions: readonly Assertion[],
  answer: { output: unknown; durationMs: number },
  previous: Record<string, unknown>,
  visualRatios: ReadonlyMap<number, number>,
): Judgement {
  const results: AssertionResult[] = [];
  const changedPaths: string[] = [];
  const visualOver: number[] = [];
  const next: Record<string, unknown> = {};
  for (const [i, a] of assertions.entries()) {
    if (a.op === 'visual_change') {
      const ratio = visualRatios.get(i);
      const over = ratio !== undefined && ratio > a.threshold;
      if (over) visualOver.push(i);
      results.push({ path: a.path, op: a.op, value: a.threshold, actual: ratio ?? null, pass: !over });
      continue;
    }
    const actual = a.path === DURATION_PATH ? answer.durationMs : resolvePointer(answer.output, a.path);
    if (a.op === 'changed') {
      next[a.path] = actual ?? null;
      const changed = Object.hasOwn(previous, a.path) && !same(previous[a.path], actual);
      if (changed) changedPaths.push(a.path);
      results.push({ path: a.path, op: a.op, actual: shownValue(actual), pass: !changed });
      continue;
    }
    results.push({ path: a.path, op: a.op, value: a.value, actual: shownValue(actual), pass: compare(a.op, actual, a.value) });
  }
  const failing = results.filter((r) => !r.pass && !(CHANGE_OPS as readonly string[]).includes(r.op));
  const outcome: RunOutcome = failing.length === 0 ? 'pass' : failing.every((r) => r.path === DURATION_PATH) ? 'degraded' : 'fail';
  return { results, outcome, changedPaths, visualOver, previous: next, reason: failing[0] ? describeFailure(failing[0]) : null };
}

/** `/status eq 200, got 500`: a failed assertion as a state's reason. */
export function describeFailure(r: AssertionResult): string {
  const got = r.actual === null ? 'nothing there' : JSON.stringify(r.actual);
  return `${r.path} ${r.op} ${JSON.stringify(r.value)}: got ${got}`;
}
