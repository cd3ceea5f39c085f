//! A monitor's judgement, pure: pointers, comparisons, change checks, the run's outcome, the state
//! machine's confirmation and recovery counts, uptime by hour, and a run's whole decision.
import test from 'ava';
import { compare, judgeAnswer, resolvePointer } from '../../../domain/monitors/assertions.js';
import type { Assertion } from '../../../domain/monitors/definition.js';
import type { MonitorDoc } from '../../../domain/monitors/documents.js';
import { FRESH_STREAKS, nextHealth, pausedHealth, type Health } from '../../../domain/monitors/states.js';
import { countRun, uptimeOf } from '../../../domain/monitors/uptime.js';
import { decide, NO_VISUAL_FINDINGS, type RunReport } from '../../../domain/monitors/verdict.js';

test('a JSON pointer reads objects and arrays, with ~0 and ~1 escapes; a miss is undefined', (t) => {
  const doc = { a: { 'b/c': [10, { 'd~e': 'x' }] }, '': 1 };
  t.is(resolvePointer(doc, '/a/b~1c/0'), 10);
  t.is(resolvePointer(doc, '/a/b~1c/1/d~0e'), 'x');
  t.is(resolvePointer(doc, '/'), 1);
  t.is(resolvePointer(doc, '/a/b~1c/01'), undefined);
  t.is(resolvePointer(doc, '/a/missing/x'), undefined);
  t.deepEqual(resolvePointer(doc, ''), doc);
});

test('comparisons: JSON equality, contains for texts, lists and keys, numeric order, patterns', (t) => {
  t.true(compare('eq', { a: [1, 2] }, { a: [1, 2] }));
  t.false(compare('eq', undefined, null), 'a missing value equals nothing');
  t.true(compare('ne', undefined, 200));
  t.true(compare('contains', 'Add to cart now', 'to cart'));
  t.true(compare('contains', ['93.184.216.34', '1.1.1.1'], '1.1.1.1'));
  t.true(compare('contains', { mx: 1 }, 'mx'));
  t.false(compare('contains', 42, 4));
  t.true(compare('not_contains', 'all good', 'error'));
  t.true(compare('lt', 29, 30));
  t.false(compare('lt', '29', 30), 'order compares numbers only');
  t.true(compare('gte', 30, 30));
  t.true(compare('matches', 'v2.14.3', '^v2\\.'));
});

const health = (state: Health['state'], streaks = FRESH_STREAKS): Health => ({ state, reason: null, streaks });
const ALERT = { downAfter: 2, upAfter: 2 };

test('a monitor goes down only after downAfter failed runs in a row, and up after upAfter good ones', (t) => {
  let h = health('up');
  const steps: string[] = [];
  for (const outcome of ['fail', 'pass', 'fail', 'error', 'fail', 'pass', 'pass', 'pass'] as const) {
    const moved = nextHealth(h, outcome, outcome === 'pass' ? null : `${outcome}!`, ALERT);
    h = moved.health;
    steps.push(`${h.state}${moved.event ? `:${moved.event}` : ''}`);
  }
  t.deepEqual(steps, ['up', 'up', 'up', 'down:monitor.down', 'down', 'down', 'up:monitor.up', 'up']);
});

test('degraded runs in a row make it degraded, not down; a first good run of a new monitor sends nothing', (t) => {
  const first = nextHealth(health('pending'), 'pass', null, { downAfter: 2, upAfter: 1 });
  t.is(first.health.state, 'up');
  t.is(first.event, undefined);
  let h = first.health;
  const events: Array<string | undefined> = [];
  for (const outcome of ['degraded', 'degraded', 'fail', 'fail'] as const) {
    const moved = nextHealth(h, outcome, outcome, { downAfter: 2, upAfter: 1 });
    h = moved.health;
    events.push(moved.event);
  }
  t.deepEqual(events, [undefined, 'monitor.degraded', undefined, 'monitor.down']);
  t.is(h.reason, 'fail');
});

test('a paused monitor stays paused whatever its runs find; pausing sends monitor.paused once', (t) => {
  const paused = pausedHealth(health('up'), 'insufficient_credits');
  t.is(paused.event, 'monitor.paused');
  t.is(pausedHealth(paused.health, 'insufficient_credits').event, undefined);
  t.deepEqual(nextHealth(paused.health, 'fail', 'x', ALERT), { health: paused.health });
});

test('uptime counts good runs per hour and keeps 30 days', (t) => {
  const now = new Date('2026-05-31T12:30:00Z');
  let hours: Record<string, [number, number]> = {};
  hours = countRun(hours, new Date('2026-05-01T13:00:00Z'), false); // 29 days and 23 hours before: in the 30 days
  hours = countRun(hours, new Date('2026-05-30T12:10:00Z'), false); // 24 h 20 min before: not in the last 24 hours
  for (let i = 0; i < 3; i++) hours = countRun(hours, new Date('2026-05-31T12:00:00Z'), true);
  t.deepEqual(uptimeOf(hours, now), { '24h': 100, '7d': 75, '30d': 60 });
  const later = countRun(hours, new Date('2026-06-01T13:05:00Z'), true);
  t.is(Object.keys(later).length, 3, 'an hour older than 30 days is dropped');
  t.deepEqual(uptimeOf({}, now), { '24h': null, '7d': null, '30d': null });
});

test('change checks fire without failing the run; only /durationMs failing makes it degraded', (t) => {
  const assertions: Assertion[] = [
    { path: '/records', op: 'changed' },
    { path: '/durationMs', op: 'lt', value: 100 },
    { path: '/found', op: 'eq', value: true },
  ];
  const first = judgeAnswer(assertions, { output: { records: ['a'], found: true }, durationMs: 50 }, {}, new Map());
  t.is(first.outcome, 'pass');
  t.deepEqual(first.changedPaths, [], 'the first answer is what later ones compare with');
  const second = judgeAnswer(assertions, { output: { records: ['b'], found: true }, durationMs: 150 }, first.previous, new Map());
  t.is(second.outcome, 'degraded');
  t.deepEqual(second.changedPaths, ['/records']);
  t.is(second.reason, '/durationMs lt 100: got 150');
  const third = judgeAnswer(assertions, { output: { records: ['b'], found: false }, durationMs: 150 }, second.previous, new Map());
  t.is(third.outcome, 'fail');
});

function monitorDoc(fields: Partial<MonitorDoc> = {}): MonitorDoc {
  const now = new Date('2026-05-01T09:00:00Z');
  return {
    _id: 'mon_1',
    accountId: 'acc_1',
    name: 'm',
    tool: 'http-request',
    input: {},
    schedule: { every: '1m' },
    assertions: [{ path: '/statusCode', op: 'eq', value: 200 }],
    alert: { downAfter: 1, upAfter: 1, notify: [], remindEvery: '10m' },
    monthlyCreditLimit: null,
    state: 'up',
    stateReason: null,
    streaks: FRESH_STREAKS,
    previous: {},
    changedVisuals: [],
    baselineRunId: null,
    hours: {},
    recent: [],
    lastRun: null,
    notifiedAt: null,
    seq: 3,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
}

const report = (requestId: string, result: RunReport['result'], at = new Date('2026-05-01T10:00:00Z')): RunReport => ({
  requestId,
  result,
  at,
  durationMs: 120,
  charged: result.ok ? 1 : 0,
});
const ok = (statusCode: number) => ({ ok: true as const, output: { statusCode }, charged: 1, balance: 10 });

test("a run's decision: its record, its notice with an id fixed by the run, a reminder while down, a refusal for credits pauses", (t) => {
  const down = decide(monitorDoc(), report('r1', ok(500)), { statusCode: 500 }, NO_VISUAL_FINDINGS, new Date('2026-05-01T10:00:01Z'));
  t.is(down.run.outcome, 'fail');
  t.is(down.set.state, 'down');
  t.deepEqual(
    down.run.notices.map((n) => n.kind),
    ['monitor.down'],
  );
  t.is(
    decide(monitorDoc(), report('r1', ok(500)), { statusCode: 500 }, NO_VISUAL_FINDINGS, new Date()).run.notices[0]!.eventId,
    down.run.notices[0]!.eventId,
    'decided again, the same event',
  );

  const stillDown = monitorDoc({ ...down.set, seq: 4 } as Partial<MonitorDoc>);
  const soon = decide(stillDown, report('r2', ok(500)), { statusCode: 500 }, NO_VISUAL_FINDINGS, new Date('2026-05-01T10:05:00Z'));
  t.deepEqual(soon.run.notices, [], 'no reminder before remindEvery');
  const late = decide(stillDown, report('r3', ok(500)), { statusCode: 500 }, NO_VISUAL_FINDINGS, new Date('2026-05-01T10:11:00Z'));
  t.like(late.run.notices[0], { kind: 'monitor.down', reminder: true });

  const refused = { ok: false as const, error: { code: 'insufficient_credits' as const, message: 'no credits', extras: {} } };
  const paused = decide(monitorDoc(), report('r4', refused), undefined, NO_VISUAL_FINDINGS, new Date());
  t.like(paused.set, { state: 'paused', stateReason: 'insufficient_credits' });
  t.deepEqual(
    paused.run.notices.map((n) => n.kind),
    ['monitor.paused'],
  );
  t.deepEqual(paused.set.hours, {}, 'a run refused for credits says nothing of uptime');
});
