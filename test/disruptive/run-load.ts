//! `npm run load`: 60 s of tool calls at a fixed arrival rate (LOAD_RATE, default 10/s) with a
//! mix weighted like real traffic (cheap tools mostly, ~3% browser captures), after a 10 s
//! warm-up: p50/p95/p99 per tool, outcomes by status and code, and the RSS of every stack
//! process (and of its descendants) at the start and the end, against the bound in
//! test/disruptive/support/load-run.ts, sampled every 10 s into `load-memory.csv` and its chart
//! `load-memory.svg`. Exits 1 on a 500, an unanswered call or memory over the bound (504s past
//! the machine's capacity are figures; the bounded suite asserts none at 4/s), and on a run of ten
//! minutes or more also when a part's memory still grows in the last third (the soak's rule): a
//! level reached and held within the bound passes, growth that goes on does not.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatLevels, judgedGrowth, MEASURE_NAMES, memoryChart, memoryCsv, memoryLevels } from './support/memory-curve.js';
import { memoryOverBound, printLoad, runLoad } from './support/load-run.js';
import { stackControl } from './support/stack-control.js';
import { withTestStack } from './support/test-like-stack.js';

const rate = Number(process.env.LOAD_RATE ?? 10);
const seconds = Number(process.env.LOAD_SECONDS ?? 60);
/** Shorter runs are judged by the bound alone: a minute's samples cannot tell a level from a step. */
const LEVEL_JUDGED_FROM_SECONDS = 600;

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
    const durationMs = seconds * 1000;
    writeFileSync(path.join(stack.outputDir, 'load-memory.csv'), memoryCsv(result.samples));
    writeFileSync(path.join(stack.outputDir, 'load-memory.svg'), memoryChart(result.samples, [], durationMs));
    const levels = [...memoryLevels(result.samples, durationMs, 'rss'), ...memoryLevels(result.samples, durationMs, 'treePss')];
    const judged = seconds >= LEVEL_JUDGED_FROM_SECONDS;
    console.log(
      `memory every 10 s in ${path.relative(process.cwd(), stack.outputDir)}/load-memory.{csv,svg}: level at a third of the run, highest in the last third${judged ? '' : ' (not judged under 10 minutes)'}:`,
    );
    for (const line of formatLevels(levels)) console.log(line);
    const growing = judged ? judgedGrowth(levels) : [];
    // Past the machine's capacity calls queue and time out (504, refunded): figures, not a
    // failure. A 500, a call left unanswered or memory past the bound is one.
    const broken = result.calls.filter((c) => c.status === undefined || c.status === 500).length;
    const over = memoryOverBound(result);
    console.log(
      `\nload: ${broken} answers 500 or none; memory over the bound: ${over.map((m) => m.part).join(', ') || 'none'}; still growing: ${growing.map((l) => `${l.part} (${MEASURE_NAMES[l.measure]})`).join(', ') || 'none'}`,
    );
    return broken > 0 || over.length > 0 || growing.length > 0;
  },
  { RATE_LIMIT_PER_SECOND: String(Math.max(60, rate * 2)) },
);
process.exit(failed ? 1 : 0);
