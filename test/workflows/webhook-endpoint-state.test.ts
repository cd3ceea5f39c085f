//! The webhook endpoint's state changes (workflows/webhook-endpoint-state.ts), driven directly:
//! no Temporal, no database, no receiver. The workflow tests prove the same through the stack.
import test from 'ava';
import type { PendingDelivery } from '../../contracts/webhook-messages.js';
import {
  DISABLE_AFTER_FAILURES,
  firstDue,
  LEGACY_MAX_PENDING,
  MAX_PENDING,
  RETRY_DELAYS_MS,
  SEEN_TTL_MS,
  startable,
} from '../../contracts/webhook-policy.js';
import {
  applyArrivals,
  arrive,
  carry,
  concurrentLimits,
  LEGACY_LIMITS,
  isQuiet,
  mirrorOf,
  nextWakeAt,
  settleAttempt,
  snapshot,
  startWork,
  takePage,
  type Arrival,
  type Endpoint,
  type Outcome,
} from '../../workflows/webhook-endpoint-state.js';
import { CONCURRENCY, delivered, endpoint, envelope, event, failed, random, T0, turn } from './support/webhook-endpoint-state.js';

test('an event is attempted at once; a delivery ends it and the endpoint is quiet again', (t) => {
  const m = endpoint();
  const { attempts } = turn(m, T0, event('evt_1'));
  t.deepEqual(
    attempts.map((d) => [d.event.id, d.attempts]),
    [['evt_1', 1]],
  );
  t.false(isQuiet(m));
  m.inFlight.delete('evt_1');
  t.is(settleAttempt(m, attempts[0]!, delivered, T0 + 10), undefined);
  t.deepEqual(snapshot(m, 1), {
    consecutiveFailures: 0,
    disabled: false,
    pending: 0,
    inFlight: 0,
    concurrency: CONCURRENCY,
    run: 1,
    recovering: false,
  });
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

test('one failure short of the disable, one attempt at a time; the 20th failure in a row disables', (t) => {
  const m = endpoint({ consecutiveFailures: DISABLE_AFTER_FAILURES - 1 });
  const { attempts } = turn(m, T0, event('evt_1'), event('evt_2'), event('evt_3'));
  t.is(attempts.length, 1);
  m.inFlight.delete(attempts[0]!.event.id);
  const notice = settleAttempt(m, attempts[0]!, failed, T0 + 50);
  t.deepEqual(notice, { consecutiveFailures: DISABLE_AFTER_FAILURES, pending: 3 });
  t.deepEqual(mirrorOf(m, T0 + 99), {
    consecutiveFailures: 20,
    disabled: true,
    disabledAt: T0 + 50,
    disabledReason: '20 consecutive failed deliveries',
  });
  t.deepEqual(
    m.books.undelivered.map((b) => [b.reason, b.items.map((i) => i.event.id)]),
    [['endpoint_disabled', ['evt_1', 'evt_2', 'evt_3']]],
  );
  t.is(m.state.pending.length, 0);
  // While disabled, an event ends at once; re-enabling resets the count and delivers again.
  t.deepEqual(turn(m, T0 + 60, event('evt_4')).attempts, []);
  t.is(m.books.undelivered.at(-1)?.items[0]?.event.id, 'evt_4');
  t.deepEqual(
    turn(m, T0 + 70, { kind: 'enable' }, event('evt_5')).attempts.map((d) => d.event.id),
    ['evt_5'],
  );
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
  const m = endpoint({ consecutiveFailures: DISABLE_AFTER_FAILURES - 1 });
  const arrivals = Array.from({ length: MAX_PENDING + 1 }, (_, i) => event(`evt_${i}`));
  const { attempts } = turn(m, T0, ...arrivals);
  t.deepEqual(
    attempts.map((d) => d.event.id),
    ['evt_1'],
    'one failure short of the disable: one at a time',
  );
  t.is(m.state.pending.length, MAX_PENDING);
  t.deepEqual(
    m.books.undelivered.map((b) => [b.reason, b.items[0]!.event.id]),
    [['backlog_full', 'evt_0']],
  );
});

test('a burst runs the concurrency at once; each attempt that ends lets the next one start', (t) => {
  const m = endpoint();
  const first = turn(m, T0, ...Array.from({ length: 20 }, (_, i) => event(`evt_${i}`))).attempts;
  t.deepEqual(
    first.map((d) => d.event.id),
    Array.from({ length: CONCURRENCY }, (_, i) => `evt_${i}`),
    'in the order they came',
  );
  t.is(snapshot(m, 1).inFlight, CONCURRENCY);
  t.deepEqual(turn(m, T0 + 1).attempts, [], 'no slot free');
  m.inFlight.delete('evt_3');
  settleAttempt(m, first[3]!, delivered, T0 + 2);
  t.deepEqual(
    turn(m, T0 + 2).attempts.map((d) => d.event.id),
    ['evt_8'],
  );
});

/** Ends an attempt in flight: what the workflow does when its activity answers. */
function end(m: Endpoint, d: PendingDelivery, result: Outcome, now: number) {
  m.inFlight.delete(d.event.id);
  return settleAttempt(m, d, result, now);
}

test('consecutive is the order attempts end in: the same outcomes leave 7 or 0 as the success ends first or last', (t) => {
  for (const successLast of [false, true]) {
    const m = endpoint();
    const inFlight = turn(m, T0, ...Array.from({ length: CONCURRENCY }, (_, i) => event(`evt_${i}`))).attempts;
    t.is(inFlight.length, CONCURRENCY, 'all started at once');
    // evt_0 succeeds, the other seven fail; only when each ends differs.
    const order = successLast ? [...inFlight.slice(1), inFlight[0]!] : inFlight;
    order.forEach((d, i) => end(m, d, d.event.id === 'evt_0' ? delivered : failed, T0 + 10 + i));
    t.is(m.state.consecutiveFailures, successLast ? 0 : CONCURRENCY - 1);
  }
});

test('fewer attempts start as failures near the disable, so the 20th failure finds nothing else in flight', (t) => {
  const m = endpoint({ consecutiveFailures: DISABLE_AFTER_FAILURES - 3 });
  const started = turn(m, T0, ...Array.from({ length: 10 }, (_, i) => event(`evt_${i}`))).attempts;
  t.is(started.length, 3, 'three failures short: three at once');
  end(m, started[0]!, failed, T0 + 1);
  t.deepEqual(turn(m, T0 + 1).attempts, [], 'two short, two in flight: none more');
  end(m, started[1]!, delivered, T0 + 2);
  t.is(m.state.consecutiveFailures, 0);
  t.is(turn(m, T0 + 2).attempts.length, CONCURRENCY - 1, 'a success: the whole concurrency again');
});

test('whatever order attempts end in: the count is the failures since the last success to end, the disable comes at exactly 20 with nothing in flight, and nothing starts after', (t) => {
  let disables = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const next = random(seed);
    const m = endpoint({}, concurrentLimits(1 + Math.floor(next() * 24)));
    const successRate = 0.02 + next() * 0.2;
    let now = T0;
    const running = [...turn(m, now, ...Array.from({ length: 60 }, (_, i) => event(`evt_${i}`))).attempts];
    const ended: boolean[] = [];
    let disabledWith: number | undefined;
    while (running.length > 0) {
      t.true(running.length + m.state.consecutiveFailures <= DISABLE_AFTER_FAILURES, `seed ${seed}: in flight plus count stay within 20`);
      const [d] = running.splice(Math.floor(next() * running.length), 1);
      const success = next() < successRate;
      ended.push(success);
      now += 1 + Math.floor(next() * 10_000);
      const notice = end(m, d!, success ? delivered : failed, now);
      t.is(
        m.state.consecutiveFailures,
        ended.length - 1 - ended.lastIndexOf(true),
        `seed ${seed}: the count is the failures since the last success to end`,
      );
      if (notice) {
        disabledWith = running.length;
        t.is(notice.consecutiveFailures, DISABLE_AFTER_FAILURES);
      }
      running.push(...turn(m, now).attempts);
    }
    if (disabledWith === undefined) continue; // a success came often enough
    disables++;
    t.is(disabledWith, 0, `seed ${seed}: nothing in flight at the disable`);
    t.true(m.state.disabled);
    t.deepEqual(ended.slice(-DISABLE_AFTER_FAILURES), Array(DISABLE_AFTER_FAILURES).fill(false), `seed ${seed}: the last 20 to end failed`);
    t.deepEqual(turn(m, now + 86_400_000).attempts, [], `seed ${seed}: nothing starts once disabled`);
  }
  t.log(`${disables} of 200 runs disabled`);
  t.true(disables >= 50 && disables <= 190, 'both endings are exercised');
});

test('a run begun before concurrent deliveries keeps the old limits: 8 at once while healthy, one once an attempt failed, 1,000 held', (t) => {
  const m = endpoint({}, LEGACY_LIMITS);
  const first = turn(m, T0, ...Array.from({ length: LEGACY_MAX_PENDING + 1 }, (_, i) => event(`evt_${i}`))).attempts;
  t.is(first.length, 8);
  t.is(m.state.pending.length, LEGACY_MAX_PENDING);
  t.is(snapshot(m, 1).concurrency, undefined);
  end(m, first[0]!, failed, T0 + 1);
  end(m, first[1]!, failed, T0 + 2);
  t.deepEqual(turn(m, T0 + 2).attempts, [], 'six in flight, limit one');
  for (const d of first.slice(2)) end(m, d, failed, T0 + 3);
  t.is(turn(m, T0 + 3).attempts.length, 1);
});

test('firstDue takes, from the front of the queue, the first deliveries that may start and are due', (t) => {
  for (let seed = 1; seed <= 300; seed++) {
    const next = random(seed);
    const pending = Array.from({ length: Math.floor(next() * 40) }, (_, i) => ({
      event: { id: `evt_${i}` },
      nextAttemptAt: T0 + Math.floor(next() * 6) * 1000,
      attempts: Math.floor(next() * 3),
      ...(next() < 0.2 ? { trigger: 'recovery' } : {}),
    }));
    const inFlight = new Set(pending.filter(() => next() < 0.2).map((d) => d.event.id));
    const now = T0 + Math.floor(next() * 6) * 1000;
    const count = Math.floor(next() * 12);
    const expected = startable(pending, inFlight)
      .filter((d) => d.nextAttemptAt <= now)
      .slice(0, count);
    t.deepEqual(firstDue(pending, inFlight, now, count), expected, `seed ${seed}`);
  }
});

test('a replay makes a waiting delivery due now, and is ignored while the endpoint is disabled', (t) => {
  const m = endpoint();
  const [d] = turn(m, T0, event('evt_1')).attempts;
  m.inFlight.delete('evt_1');
  settleAttempt(m, d!, failed, T0 + 1);
  const replay: Arrival = { kind: 'replay', event: envelope('evt_1') };
  const again = turn(m, T0 + 2, replay).attempts;
  t.deepEqual(
    again.map((p) => [p.event.id, p.trigger]),
    [['evt_1', 'replay']],
  );
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
  t.deepEqual(
    attempts.map((d) => [d.event.id, d.trigger]),
    [['evt_a', 'recovery']],
    'the next waits for the first attempt',
  );
  m.inFlight.delete('evt_a');
  settleAttempt(m, attempts[0]!, delivered, T0 + 2);
  t.deepEqual(
    turn(m, T0 + 2).attempts.map((d) => d.event.id),
    ['evt_b'],
  );
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
