//! When a restarted worker counts as having served its backlog (workers/caught-up.ts): judged on
//! the tasks its workers report in flight, which these tests script.
import test from 'ava';
import type { Worker } from '@temporalio/worker';
import { caughtUp, tasksInFlight } from '../../workers/caught-up.js';

type Status = ReturnType<Worker['getStatus']>;

/** A worker whose in-flight counts follow `counts`, one per status read (the last one repeats). */
function scripted(counts: number[]): Pick<Worker, 'getStatus'> & { reads: number } {
  const w = {
    reads: 0,
    getStatus: () => {
      const n = counts[Math.min(w.reads++, counts.length - 1)]!;
      return { numInFlightWorkflowActivations: n, numInFlightActivities: n } as Status;
    },
  };
  return w;
}

test('tasks in flight add up workflow tasks and activities over the workers', (t) => {
  t.is(tasksInFlight([scripted([3]), scripted([1])]), 8);
});

test('caught up after the given run of idle checks, counted from the last busy one', async (t) => {
  const worker = scripted([9, 9, 0, 0, 9, 0, 0, 0]);
  await caughtUp([worker], { checks: 3, everyMs: 1 });
  t.is(worker.reads, 8, 'the busy read in the middle restarted the count');
});

test('a worker that stays busy is caught up at the latest bound', async (t) => {
  const worker = scripted([50]);
  const waited = await caughtUp([worker], { everyMs: 5, latestMs: 100 });
  t.true(waited >= 100, `waited ${waited} ms`);
  t.true(worker.reads > 1);
});

test('shutting down ends the wait at once', async (t) => {
  const stopping = new AbortController();
  const waiting = caughtUp([scripted([50])], { everyMs: 10, latestMs: 60_000, signal: stopping.signal });
  setTimeout(() => stopping.abort(), 30);
  t.true((await waiting) < 5_000);
});
