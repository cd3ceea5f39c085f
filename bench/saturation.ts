//! `npm run bench:saturation`: what an operator sees when one pool is short of workers. On a
//! throwaway production-shaped cluster, html-to-image calls one at a time (the browser pool
//! idle), then SATURATION_CONCURRENCY at once (default 12, against BROWSER_CONCURRENCY=2 slots):
//! for each, from the browser worker's own metrics, the activity schedule-to-start p50/p95, the
//! slots in use (sampled each second) and the empty polls, beside the callers' latency.
import { sample, quantileBetween } from './prom-text.js';
import { measure, postJson, printTable, type Figures } from './measure.js';
import { withClusterBenchStack } from './cluster-stack.js';

const CONCURRENCY = Number(process.env.SATURATION_CONCURRENCY ?? 12);
const CALLS = Number(process.env.SATURATION_CALLS ?? 48);
const QUEUE = { task_queue: 'browser' };

interface PhaseFigures {
  phase: string;
  call: Figures;
  scheduleToStartP50: number;
  scheduleToStartP95: number;
  slotsUsedMax: number;
  slotsUsedMean: number;
  emptyPolls: number;
}

const html = (i: number) => `<html><body style="font:40px sans-serif"><h1>Call ${i}</h1><p>${'load '.repeat(200)}</p></body></html>`;

const figures: PhaseFigures[] = await withClusterBenchStack(async (stack, { metricsUrls }) => {
  const metricsUrl = metricsUrls['worker-browser']!;
  const scrape = async () => (await fetch(metricsUrl)).text();
  const key = await stack.newApiKey(CALLS * 30 + 1000);
  const url = `${stack.apiUrl}/api/v1/tools/html-to-image`;
  const phases: PhaseFigures[] = [];
  for (const [phase, concurrency, calls] of [
    ['idle: one call at a time', 1, 12],
    [`saturated: ${CONCURRENCY} at once`, CONCURRENCY, CALLS],
  ] as const) {
    const before = await scrape();
    const slots: number[] = [];
    const sampler = setInterval(
      () =>
        void scrape().then((t) => slots.push(sample(t, 'temporal_worker_task_slots_used', { ...QUEUE, worker_type: 'ActivityWorker' }))),
      1_000,
    );
    const call = await measure(phase, (i) => postJson(url, { html: html(i), width: 800, height: 600 }, key), {
      calls,
      concurrency,
      warmup: 2,
    });
    clearInterval(sampler);
    const after = await scrape();
    phases.push({
      phase,
      call,
      scheduleToStartP50: quantileBetween(before, after, 'temporal_activity_schedule_to_start_latency', QUEUE, 0.5),
      scheduleToStartP95: quantileBetween(before, after, 'temporal_activity_schedule_to_start_latency', QUEUE, 0.95),
      slotsUsedMax: Math.max(0, ...slots),
      slotsUsedMean: slots.reduce((a, b) => a + b, 0) / Math.max(1, slots.length),
      emptyPolls:
        sample(after, 'temporal_activity_poll_no_task_total', QUEUE) - sample(before, 'temporal_activity_poll_no_task_total', QUEUE),
    });
  }
  return phases;
});

printTable(
  'html-to-image through the cluster (callers)',
  figures.map((f) => f.call),
);
console.log("\nThe browser worker's metrics (METRICS_PORT) meanwhile");
console.table(
  figures.map((f) => ({
    phase: f.phase,
    'schedule-to-start p50 s': +f.scheduleToStartP50.toFixed(3),
    'schedule-to-start p95 s': +f.scheduleToStartP95.toFixed(3),
    'slots used max': f.slotsUsedMax,
    'slots used mean': +f.slotsUsedMean.toFixed(2),
    'empty polls': f.emptyPolls,
  })),
);
process.exit(0);
