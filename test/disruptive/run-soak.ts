//! `npm run soak`: the load mix at SOAK_RATE calls a second (default 8; a tenth of them render
//! links, mostly cache hits, and a twentieth asynchronous calls whose `call.completed` webhooks are
//! checked) with a 200-item batch every five minutes, for SOAK_MINUTES (default 60), a fault every
//! SOAK_FAULT_MINUTES (default ten; a worker killed, Temporal restarted, the database killed, in
//! turn; on the production-shaped stack with SOAK_STACK=cluster, a cpu worker killed, Temporal and
//! PostgreSQL restarted), and every stack process's RSS sampled every 10 s into `soak-memory.csv` with its chart
//! `soak-memory.svg` in the run's directory; p50/p99 per tool per ten-minute window; the ledger
//! audit at the end. Exits 1 when a process's memory in the last third grows past 5% over its
//! level at a third of the run (minute 20 of 60), on a 5xx or an unanswered call outside the
//! faults' reach, when a tool's p99 in the last window is past 1.2x the first (of 100 calls or more;
//! asynchronous calls pooled over the tools), or on any mismatch
//! of the audit (a call charged without its 200, or a 200 not charged, a batch item charged other
//! than iff it succeeded), a charged cache hit, or an
//! asynchronous call whose webhook never came.
import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatAudit } from './support/ledger-audit.js';
import { formatExtras } from './support/soak-extras.js';
import { formatLevels, judgedGrowth, MEMORY_CSV_HEADER, memoryChart, memoryCsvRows, memoryLevels } from './support/memory-curve.js';
import { CLUSTER_FAULTS, DEFAULT_FAULTS, latencyDrift, runSoak } from './support/soak-run.js';
import { stackControl } from './support/stack-control.js';
import { withTestStack } from './support/test-like-stack.js';

const rate = Number(process.env.SOAK_RATE ?? 8);
const minutes = Number(process.env.SOAK_MINUTES ?? 60);
const faultMinutes = Number(process.env.SOAK_FAULT_MINUTES ?? 10);
/** `SOAK_STACK=cluster`: the production-shaped stack of `npm run test:cluster` instead of `npm test`'s. */
const cluster = process.env.SOAK_STACK === 'cluster';

const failed = await withTestStack(
  'soak',
  async (stack) => {
    console.log(
      `soak: ${minutes} min at ${rate}/s, a fault every ${faultMinutes} minutes, on the ${cluster ? 'production-shaped (cluster)' : 'local'} stack`,
    );
    const durationMs = minutes * 60_000;
    // Written as the samples come, so a run cut short still leaves its curves.
    const csv = path.join(stack.outputDir, 'soak-memory.csv');
    writeFileSync(csv, MEMORY_CSV_HEADER);
    const result = await runSoak({
      apiUrl: stack.apiUrl,
      adminToken: stack.adminToken,
      control: stackControl(stack.controlUrl),
      pagesUrl: stack.pagesUrl,
      mongodbUrl: stack.mongodbUrl,
      temporal: stack.temporal,
      ratePerSecond: rate,
      durationMs,
      faultEveryMs: faultMinutes * 60_000,
      faults: cluster ? CLUSTER_FAULTS : DEFAULT_FAULTS,
      onMemory: (round) => appendFileSync(csv, memoryCsvRows(round)),
      log: console.log,
    });
    const svg = path.join(stack.outputDir, 'soak-memory.svg');
    writeFileSync(svg, memoryChart(result.samples, result.faults, durationMs));
    console.log(
      `\nsoak: ${result.arrivals.sent} calls sent, ${result.arrivals.dropped} dropped; memory in ${path.relative(process.cwd(), csv)} and ${path.relative(process.cwd(), svg)}`,
    );

    console.log(
      `latency per tool per ten-minute window (ms), of the calls sent outside the faults' reach (${result.callsNearFaults} within it left out):`,
    );
    for (const w of result.windows)
      console.log(
        `  window ${w.window}  ${w.tool.padEnd(20)} calls ${String(w.calls).padStart(5)}  p50 ${w.p50Ms.toFixed(0).padStart(6)}  p99 ${w.p99Ms.toFixed(0).padStart(6)}`,
      );
    const levels = [
      ...memoryLevels(result.samples, durationMs, 'rss', result.faults),
      ...memoryLevels(result.samples, durationMs, 'treePss', result.faults),
    ];
    console.log(
      'memory (from each fault until a minute after its part was back left out): level at a third of the run, highest minute in the last third, levelled from:',
    );
    for (const line of formatLevels(levels)) console.log(line);
    const drift = latencyDrift(result.windows);
    for (const d of drift) console.log(`  p99 drift: ${d.tool} ${d.firstP99.toFixed(0)} -> ${d.lastP99.toFixed(0)} ms`);
    console.log(`5xx or no answer outside the faults' reach: ${result.failuresOutsideFaults.length}`);
    console.log(formatAudit(result.audit));
    console.log(formatExtras(result.extras));
    return (
      judgedGrowth(levels).length > 0 ||
      drift.length > 0 ||
      result.failuresOutsideFaults.length > 0 ||
      result.audit.mismatches.length > 0 ||
      result.extras.mismatches.length > 0
    );
  },
  { RATE_LIMIT_PER_SECOND: String(Math.max(60, rate * 2)) },
  { cluster },
);
process.exit(failed ? 1 : 0);
