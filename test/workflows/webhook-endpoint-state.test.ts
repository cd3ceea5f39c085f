//! The webhook endpoint's state changes (workflows/webhook-endpoint-state.ts), driven directly:
//! no Temporal, no database, no receiver. The workflow tests prove the same through the stack.
import test from 'ava';
import type { CarriedEndpointState, WebhookEnvelope } from '../../lib/webhook-messages.js';
import { DISABLE_AFTER_FAILURES, MAX_PENDING, RETRY_DELAYS_MS, SEEN_TTL_MS } from '../../lib/webhook-policy.js';
import {
  applyArrivals,
  arrive,
  carry,
  emptyInbox,
  isQuiet,
  mirrorOf,
  nextWakeAt,
  settleAttempt,
  snapshot,
  startEndpoint,
  startWork,
  takePage,
  type Arrival,
  type Endpoint,
} from '../../workflows/webhook-endpoint-state.js';

const T0 = 1_800_000_000_000;
const failed = { outcome: 'failed', statusCode: 500, durationMs: 3, error: 'HTTP 500' } as const;
const delivered = { outcome: 'delivered', statusCode: 200, durationMs: 3 } as const;

const envelope = (id: string): WebhookEnvelope => ({ id, event: 'credits.low', createdAt: '2027-01-01T00:00:00.000+00:00', data: {} });

function endpoint(state: Partial<CarriedEndpointState> = {}): Endpoint {
  return startEndpoint({ pending: [], consecutiveFailures: 0, disabled: false, seen: [], ...state }, emptyInbox());
}

/** Signals, then one turn of the loop at `now`: what it starts. */
function turn(m: Endpoint, now: number, ...arrivals: Arrival[]) {
  for (const a of arrivals) arrive(m.inbox, a);
  applyArrivals(m, now);
  return startWork(m, now, false);
}

const event = (id: string): Arrival => ({ kind: 'event', event: envelope(id) });

test('an event is attempted at once; a delivery ends it and the endpoint is quiet again', (t) => {
  const m = endpoint();
  const { attempts } = turn(m, T0, event('evt_1'));
  t.deepEqual(attempts.map((d) => [d.event.id, d.attempts]), [['evt_1', 1]]);
  t.false(isQuiet(m));
  m.inFlight.delete('evt_1');
  t.is(settleAttempt(m, attempts[0]!, delivered, T0 + 10), undefined);
  t.deepEqual(snapshot(m, 1), { consecutiveFailures: 0, disabled: false, pending: 0, inFlight: 0, run: 1, recovering: false });
  t.true(isQuiet(m));
});

test('an event id seen before is not delivered twice', (t) => {
  const m = endpoint();
  turn(m, T0, event('evt_1'));
  t.deepEqual(turn(m, T0 + 1, event('evt_1')).attempts, []);
  t.is(m.state.pending.length, 1);
});

test('a failed attempt counts against the endpoint and is retried on the contract schedule', (t) => {
  const m = endpoint();
  const [d] = turn(m, T0, event('evt_1')).attempts;
  m.inFlight.delete('evt_1');
  settleAttempt(m, d!, failed, T0 + 100);
  t.is(m.state.consecutiveFailures, 1);
  t.true(m.books.mirrorWanted);
  t.is(nextWakeAt(m, false), T0 + 100 + RETRY_DELAYS_MS[0]!);
  t.deepEqual(turn(m, T0 + 101).attempts, [], 'not due yet');
  t.is(turn(m, T0 + 100 + RETRY_DELAYS_MS[0]!).attempts[0]?.attempts, 2);
});

test('our side failing is retried on the schedule without counting against the endpoint', (t) => {
  const m = endpoint();
  const [d] = turn(m, T0, event('evt_1')).attempts;
  m.inFlight.delete('evt_1');
  settleAttempt(m, d!, { outcome: 'not_attempted' }, T0 + 100);
  t.is(m.state.consecutiveFailures, 0);
  t.is(d!.nextAttemptAt, T0 + 100 + RETRY_DELAYS_MS[0]!);
});

test('a failing endpoint is probed one attempt at a time and disabled at the 20th failure in a row', (t) => {
  const m = endpoint({ consecutiveFailures: DISABLE_AFTER_FAILURES - 1 });
  const { attempts } = turn(m, T0, event('evt_1'), event('evt_2'), event('evt_3'));
  t.is(attempts.length, 1);
  m.inFlight.delete(attempts[0]!.event.id);
  const notice = settleAttempt(m, attempts[0]!, failed, T0 + 50);
  t.deepEqual(notice, { consecutiveFailures: DISABLE_AFTER_FAILURES, pending: 3 });
  t.deepEqual(mirrorOf(m, T0 + 99), { consecutiveFailures: 20, disabled: true, disabledAt: T0 + 50, disabledReason: '20 consecutive failed deliveries' });
  t.deepEqual(m.books.undelivered.map((b) => [b.reason, b.items.map((i) => i.event.id)]), [['endpoint_disabled', ['evt_1', 'evt_2', 'evt_3']]]);
  t.is(m.state.pending.length, 0);
  // While disabled, an event ends at once; re-enabling resets the count and delivers again.
  t.deepEqual(turn(m, T0 + 60, event('evt_4')).attempts, []);
  t.is(m.books.undelivered.at(-1)?.items[0]?.event.id, 'evt_4');
  t.deepEqual(turn(m, T0 + 70, { kind: 'enable' }, event('evt_5')).attempts.map((d) => d.event.id), ['evt_5']);
  t.deepEqual(mirrorOf(m, T0 + 70), { consecutiveFailures: 0, disabled: false });
});

test('the outcome of a delivery ended meanwhile changes nothing', (t) => {
  const m = endpoint({ consecutiveFailures: DISABLE_AFTER_FAILURES - 1 });
  const [d] = turn(m, T0, event('evt_1')).attempts;
  m.state.pending = []; // ended by a disable elsewhere
  m.inFlight.delete('evt_1');
  t.is(settleAttempt(m, d!, failed, T0 + 1), undefined);
  t.is(m.state.consecutiveFailures, DISABLE_AFTER_FAILURES - 1);
});

test('an endpoint gone from the database ends the workflow', (t) => {
  const m = endpoint();
  const [d] = turn(m, T0, event('evt_1')).attempts;
  m.inFlight.delete('evt_1');
  settleAttempt(m, d!, { outcome: 'gone' }, T0 + 1);
  t.true(m.inbox.removed);
  t.false(isQuiet(m));
});

test('past the backlog limit the oldest delivery not in flight ends undelivered', (t) => {
  const m = endpoint({ consecutiveFailures: 1 });
  const arrivals = Array.from({ length: MAX_PENDING + 1 }, (_, i) => event(`evt_${i}`));
  const { attempts } = turn(m, T0, ...arrivals);
  t.deepEqual(attempts.map((d) => d.event.id), ['evt_1'], 'a failing endpoint: one at a time');
  t.is(m.state.pending.length, MAX_PENDING);
  t.deepEqual(m.books.undelivered.map((b) => [b.reason, b.items[0]!.event.id]), [['backlog_full', 'evt_0']]);
});

test('a replay makes a waiting delivery due now, and is ignored while the endpoint is disabled', (t) => {
  const m = endpoint();
  const [d] = turn(m, T0, event('evt_1')).attempts;
  m.inFlight.delete('evt_1');
  settleAttempt(m, d!, failed, T0 + 1);
  const replay: Arrival = { kind: 'replay', event: envelope('evt_1') };
  const again = turn(m, T0 + 2, replay).attempts;
  t.deepEqual(again.map((p) => [p.event.id, p.trigger]), [['evt_1', 'replay']]);
  const off = endpoint({ disabled: true });
  t.deepEqual(turn(off, T0, { kind: 'replay', event: envelope('evt_9') }).attempts, []);
  t.is(off.state.pending.length, 0);
});

test('a rotation overlap ends at its time: the loop wakes for it and the database is told', (t) => {
  const m = endpoint();
  turn(m, T0, { kind: 'rotate', notice: { rotationId: 'rot_1', overlapMs: 1000 } });
  t.is(nextWakeAt(m, false), T0 + 1000);
  t.is(snapshot(m, 1).overlapUntil, T0 + 1000);
  turn(m, T0 + 1000);
  t.deepEqual(m.books.overlapsEnded, ['rot_1']);
  t.is(nextWakeAt(m, false), undefined);
});

test('a recovery reads pages as the queue drains and sends recovered events one after another', (t) => {
  const m = endpoint();
  const first = turn(m, T0, { kind: 'recover', span: { since: T0 - 5000, until: T0 } });
  t.truthy(first.page);
  t.true(m.fetching);
  takePage(m, first.page!, { events: [envelope('evt_a'), envelope('evt_b')], after: [T0 - 1, 'evt_b'], exhausted: true }, T0 + 1);
  m.fetching = false;
  const { page, attempts } = turn(m, T0 + 1);
  t.is(page, undefined, 'every page was read');
  t.deepEqual(attempts.map((d) => [d.event.id, d.trigger]), [['evt_a', 'recovery']], 'the next waits for the first attempt');
  m.inFlight.delete('evt_a');
  settleAttempt(m, attempts[0]!, delivered, T0 + 2);
  t.deepEqual(turn(m, T0 + 2).attempts.map((d) => d.event.id), ['evt_b']);
  t.true(snapshot(m, 1).recovering);
  turn(m, T0 + 3);
  t.false(snapshot(m, 1).recovering, 'ends once its last delivery had its first attempt');
});

test('a run hands over nothing but its state, with old event ids forgotten', (t) => {
  const m = endpoint({ seen: [['evt_old', T0 - SEEN_TTL_MS - 1]] });
  arrive(m.inbox, event('evt_1'));
  applyArrivals(m, T0);
  t.deepEqual(startWork(m, T0, true), { attempts: [] });
  const carried = carry(m, T0);
  t.deepEqual(carried.seen, [['evt_1', T0]]);
  t.is(carried.pending.length, 1);
});
