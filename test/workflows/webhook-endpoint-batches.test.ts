//! The webhook endpoint's state in a run that sends attempts in batches (workflows/webhook-endpoint-state.ts
//! `beginBatch`, `endBatch`): outcomes come back a batch at a time and still count in the order
//! attempts ended. Driven directly: no Temporal, no database, no receiver.
import test from 'ava';
import { DISABLE_AFTER_FAILURES } from '../../contracts/webhook-policy.js';
import {
  beginBatch,
  concurrentLimits,
  endBatch,
  nextWakeAt,
  provisionalCount,
  type Arrival,
  type Batch,
} from '../../workflows/webhook-endpoint-state.js';
import { delivered, endpoint, event, failed, random, T0, turn } from './support/webhook-endpoint-state.js';

test('in batches, whatever order attempts end and batches come back in: outcomes count in the order attempts ended, the disable comes at exactly 20 with nothing out, and nothing starts after', (t) => {
  let disables = 0;
  let reordered = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const next = random(seed);
    const m = endpoint({}, concurrentLimits(1 + Math.floor(next() * 24)));
    const successRate = 0.02 + next() * 0.2;
    let unique = 0;
    const out: Array<{ batch: Batch; ends: Array<{ endedAt: number; success: boolean }>; returnsAt: number }> = [];
    const launch = (now: number, ...arrivals: Arrival[]) => {
      const attempts = turn(m, now, ...arrivals).attempts;
      if (attempts.length === 0) return;
      // Ends spread over 10 s, each at a time of its own; the batch comes back a little after its last.
      const ends = attempts.map(() => ({ endedAt: now + 1 + Math.floor(next() * 10_000) + ++unique / 1e6, success: next() < successRate }));
      out.push({
        batch: beginBatch(m, attempts, now),
        ends,
        returnsAt: Math.max(...ends.map((e) => e.endedAt)) + Math.floor(next() * 100),
      });
    };
    // Sixty events arrive over 20 s, so batches start between others' returns and overlap.
    const arrivals = Array.from({ length: 60 }, (_, i) => ({ at: T0 + Math.floor(next() * 20_000), id: `evt_${i}` })).sort(
      (a, b) => a.at - b.at,
    );
    const returned: Array<{ endedAt: number; success: boolean }> = [];
    let disabledWith: number | undefined;
    let now = T0;
    let mostOut = 0;
    for (;;) {
      const running = out.reduce((n, o) => n + o.ends.length, 0);
      t.true(running + provisionalCount(m) <= DISABLE_AFTER_FAILURES, `seed ${seed}: out plus the count to come stay within 20`);
      mostOut = Math.max(mostOut, out.length);
      out.sort((a, b) => a.returnsAt - b.returnsAt);
      const wake = nextWakeAt(m, false);
      const soonest = Math.min(arrivals[0]?.at ?? Infinity, out[0]?.returnsAt ?? Infinity, wake ?? Infinity);
      if (soonest === Infinity) break;
      now = Math.max(now, soonest);
      if (arrivals[0]?.at === soonest) {
        launch(now, event(arrivals.shift()!.id));
        continue;
      }
      if (out[0]?.returnsAt !== soonest) {
        launch(now); // a retry is due
        continue;
      }
      const o = out.shift()!;
      if (returned.some((r) => r.endedAt > Math.min(...o.ends.map((e) => e.endedAt)))) reordered++;
      returned.push(...o.ends);
      const notice = endBatch(
        m,
        o.batch,
        o.ends.map((e) => ({ ...(e.success ? delivered : failed), endedAt: e.endedAt })),
        now,
      );
      // What has been counted is the earliest-ended of what came back, in the order it ended.
      const inOrder = [...returned].sort((a, b) => a.endedAt - b.endedAt).map((e) => e.success);
      const counted = inOrder.slice(0, returned.length - m.ended.length);
      const truth = counted.length - 1 - counted.lastIndexOf(true);
      t.is(
        m.state.consecutiveFailures,
        Math.min(truth, DISABLE_AFTER_FAILURES),
        `seed ${seed}: the count is the failures since the last success to end`,
      );
      if (notice) {
        disabledWith = out.length;
        t.is(notice.consecutiveFailures, DISABLE_AFTER_FAILURES);
      }
      launch(now);
    }
    t.true(mostOut > 1 || m.limits.concurrency === 1, `seed ${seed}: batches overlapped`);
    t.deepEqual(m.ended, [], `seed ${seed}: everything came back and was counted`);
    if (disabledWith === undefined) continue;
    disables++;
    t.is(disabledWith, 0, `seed ${seed}: nothing out at the disable`);
    t.true(m.state.disabled);
    const inOrder = [...returned].sort((a, b) => a.endedAt - b.endedAt).map((e) => e.success);
    t.deepEqual(
      inOrder.slice(-DISABLE_AFTER_FAILURES),
      Array(DISABLE_AFTER_FAILURES).fill(false),
      `seed ${seed}: the last 20 to end failed`,
    );
    t.deepEqual(turn(m, now + 86_400_000).attempts, [], `seed ${seed}: nothing starts once disabled`);
  }
  t.log(`${disables} of 200 runs disabled; ${reordered} batches came back after a later-ended outcome`);
  t.true(disables >= 50 && disables <= 190, 'both endings are exercised');
  t.true(reordered > 100, 'batches came back out of the order their attempts ended');
});

test('in batches, a success that ended first but came back last still resets the failures that ended after it: they count from it', (t) => {
  const m = endpoint();
  const [slow] = turn(m, T0, event('evt_a')).attempts;
  const early = beginBatch(m, [slow!], T0);
  const rest = turn(m, T0 + 1, ...Array.from({ length: 3 }, (_, i) => event(`evt_${i}`))).attempts;
  const late = beginBatch(m, rest, T0 + 1);
  // The late batch's three failures end at +20..+22 and come back first; the early batch's success ended at +10.
  endBatch(
    m,
    late,
    rest.map((_, i) => ({ ...failed, endedAt: T0 + 20 + i })),
    T0 + 30,
  );
  t.is(m.state.consecutiveFailures, 0, 'not counted while an older batch is out');
  t.is(provisionalCount(m), 3);
  endBatch(m, early, [{ ...delivered, endedAt: T0 + 10 }], T0 + 40);
  t.is(m.state.consecutiveFailures, 3, 'the success first, then the three failures');
  t.deepEqual(m.ended, []);
});
