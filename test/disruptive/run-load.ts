//! `npm run load`: 60 s of tool calls at a fixed arrival rate (LOAD_RATE, default 10/s) with a
//! mix weighted like real traffic (cheap tools mostly, ~3% browser captures), after a 10 s
//! warm-up: p50/p95/p99 per tool, outcomes by status and code, and the RSS of every stack
//! process (and of its descendants) at the start and the end, against the bound in
//! test/disruptive/support/load-run.ts. Exits 1 on a 500, an unanswered call or memory over the
//! bound (504s past the machine's capacity are figures; the bounded suite asserts none at 4/s).
import { memoryOverBound, printLoad, runLoad } from './support/load-run.js';
import { stackControl } from './support/stack-control.js';
import { withTestStack } from './support/test-like-stack.js';

const rate = Number(process.env.LOAD_RATE ?? 10);
const seconds = Number(process.env.LOAD_SECONDS ?? 60);

// Its own stack gets a rate limit above the load; a given stack must allow LOAD_RATE per account.
const failed = await withTestStack(
  'load',
  async (stack) => {
    console.log(`load: ${seconds} s at ${rate}/s after a 10 s warm-up`);
    const result = await runLoad({
      apiUrl: stack.apiUrl,
      adminToken: stack.adminToken,
      control: stackControl(stack.controlUrl),
      pagesUrl: stack.pagesUrl,
      ratePerSecond: rate,
      durationMs: seconds * 1000,
      warmupMs: 10_000,
      captureWeight: 3,
    });
    printLoad(result);
    // Past the machine's capacity calls queue and time out (504, refunded): figures, not a
    // failure. A 500, a call left unanswered or memory past the bound is one.
    const broken = result.calls.filter((c) => c.status === undefined || c.status === 500).length;
    const over = memoryOverBound(result);
    console.log(`\nload: ${broken} answers 500 or none; memory over the bound: ${over.map((m) => m.part).join(', ') || 'none'}`);
    return broken > 0 || over.length > 0;
  },
  { RATE_LIMIT_PER_SECOND: String(Math.max(60, rate * 2)) },
);
process.exit(failed ? 1 : 0);
