//! Load, bounded: 15 s of mixed calls at a low fixed rate, after a warm-up. No answer is a 5xx,
//! and no stack process grows past the stated bound (support/load-run.ts). It runs in the
//! disruptive phase only because it must run alone: the memory and 5xx figures would measure
//! the rest of the suite otherwise. `npm run load` is the full 60 s run.
import test from 'ava';
import { testEnv } from '../helpers/env.js';
import { memoryOverBound, printLoad, runLoad } from './support/load-run.js';
import { stackControl } from './support/stack-control.js';

test('15 s of mixed calls at 4/s: no 5xx, no call unanswered, memory of every process within the bound', async (t) => {
  t.timeout(3 * 60_000);
  const result = await runLoad({
    apiUrl: testEnv.apiUrl(),
    adminToken: testEnv.adminToken(),
    control: stackControl(testEnv.stackControlUrl()),
    pagesUrl: testEnv.fixtures().http.url,
    ratePerSecond: 4,
    durationMs: 15_000,
    warmupMs: 5_000,
    captureWeight: 3,
  });
  printLoad(result, (line) => t.log(line));
  const serverErrors = result.calls.filter((c) => c.status === undefined || c.status >= 500);
  t.deepEqual(
    serverErrors.map((c) => `${c.tool}: ${c.status ?? c.failure} ${c.code ?? ''}`),
    [],
  );
  t.is(result.arrivals.dropped, 0);
  t.deepEqual(
    memoryOverBound(result).map((m) => m.part),
    [],
  );
});
