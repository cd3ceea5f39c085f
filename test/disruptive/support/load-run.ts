//! The load run: tool calls at a fixed arrival rate with a mix weighted like real traffic,
//! latency percentiles per tool, errors by status and code, and the memory of every stack
//! process before and after. `npm run load` runs it in full, test/disruptive/load.test.ts
//! bounded.
import { percentile } from '../../../bench/measure.js';
import { atFixedRate, type ArrivalReport } from './arrivals.js';
import { captureMix, cheapMix, weightedPicker, type MixEntry } from './call-mix.js';
import { sampleMemory, type MemorySample } from './memory-curve.js';
import { processMemory, type ProcessMemory, type StackControl } from './stack-control.js';
import { newRecord, openAccount, sendCall, type CallRecord } from './tool-client.js';

export interface LoadOptions {
  apiUrl: string;
  adminToken: string;
  control: StackControl;
  pagesUrl: string;
  ratePerSecond: number;
  durationMs: number;
  /** Uncounted calls at the same rate first, so start-up allocations (JIT, pools, caches) are not read as growth. */
  warmupMs: number;
  /** Weight of the browser captures against the cheap tools' 85. */
  captureWeight: number;
  maxInFlight?: number;
}

export interface ToolLatency {
  tool: string;
  calls: number;
  ok: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
}

export interface MemoryRow {
  part: string;
  pid: number;
  start: ProcessMemory;
  end: ProcessMemory;
}

export interface LoadResult {
  arrivals: ArrivalReport;
  latencies: ToolLatency[];
  /** All calls: `200` or `<status> <code>`, or `no answer`. */
  outcomes: Record<string, number>;
  memory: MemoryRow[];
  /** Every part's memory every 10 s from the start (after warm-up) to the end. */
  samples: MemorySample[];
  calls: CallRecord[];
}

/**
 * The memory bound the load suites hold every part to: between the start (after warm-up) and
 * the end of a run its process tree may grow by at most this much. Generous on purpose: V8
 * and Chromium grow their heaps in steps, so the bound catches leaks that scale with calls
 * (a blob or page kept per call), not allocator noise.
 */
export function memoryGrowthAllowedKiB(startKiB: number): number {
  return Math.round(startKiB * 0.25) + 128 * 1024;
}

function latencies(calls: CallRecord[]): ToolLatency[] {
  const byTool = new Map<string, CallRecord[]>();
  for (const c of calls) byTool.set(c.tool, [...(byTool.get(c.tool) ?? []), c]);
  return [...byTool.entries()]
    .map(([tool, list]) => {
      // Percentiles of the answered calls (any status): what a client waited for.
      const times = list
        .filter((c) => c.status !== undefined)
        .map((c) => c.latencyMs!)
        .sort((a, b) => a - b);
      return {
        tool,
        calls: list.length,
        ok: list.filter((c) => c.status === 200).length,
        p50Ms: percentile(times, 50),
        p95Ms: percentile(times, 95),
        p99Ms: percentile(times, 99),
      };
    })
    .sort((a, b) => b.calls - a.calls);
}

function outcomes(calls: CallRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of calls) {
    const label = c.status === undefined ? 'no answer' : c.status === 200 ? '200' : `${c.status} ${c.code ?? ''}`.trim();
    out[label] = (out[label] ?? 0) + 1;
  }
  return out;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const targets = { pagesUrl: options.pagesUrl };
  const mix = captureMix(targets);
  const total = mix.reduce((sum, e) => sum + e.weight, 0);
  const captures = mix.map((e): MixEntry => ({ ...e, weight: (options.captureWeight * e.weight) / total }));
  const pick = weightedPicker([...cheapMix(targets), ...captures]);
  const expectedCalls = (options.ratePerSecond * (options.durationMs + options.warmupMs)) / 1000;
  const { apiKey } = await openAccount(options.apiUrl, options.adminToken, 'load', Math.ceil(expectedCalls * 30) + 1_000);
  const run = async (durationMs: number, calls: CallRecord[]) =>
    atFixedRate({ ratePerSecond: options.ratePerSecond, durationMs, maxInFlight: options.maxInFlight ?? 200 }, async () => {
      const record = newRecord(calls.length, pick());
      calls.push(record);
      await sendCall(options.apiUrl, apiKey, record);
    });

  if (options.warmupMs > 0) await run(options.warmupMs, []);
  const pids = await options.control.pids();
  const start = Object.fromEntries(Object.entries(pids).map(([part, pid]) => [part, processMemory(pid)]));
  const calls: CallRecord[] = [];
  const samples: MemorySample[] = [];
  let done = false;
  const sampler = sampleMemory(options.control, 10_000, Date.now(), samples, () => done);
  const arrivals = await run(options.durationMs, calls).finally(() => (done = true));
  await sampler;
  const after = await options.control.pids();
  const memory = Object.entries(pids).map(([part, pid]) => {
    if (after[part] !== pid) throw new Error(`${part} was restarted during the load run (pid ${pid} -> ${after[part]})`);
    return { part, pid, start: start[part]!, end: processMemory(pid) };
  });
  return { arrivals, latencies: latencies(calls), outcomes: outcomes(calls), memory, samples, calls };
}

const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;

/** The result as the tables `npm run load` prints. */
export function printLoad(result: LoadResult, log: (line: string) => void = console.log): void {
  const { arrivals } = result;
  log(
    `arrivals: ${arrivals.sent} sent, ${arrivals.dropped} dropped (over the in-flight cap), in ${(arrivals.elapsedMs / 1000).toFixed(1)} s`,
  );
  log(
    `outcomes: ${Object.entries(result.outcomes)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ')}`,
  );
  log('latency per tool (ms, answered calls):');
  for (const l of result.latencies) {
    log(
      `  ${l.tool.padEnd(20)} calls ${String(l.calls).padStart(4)}  200 ${String(l.ok).padStart(4)}  p50 ${l.p50Ms.toFixed(0).padStart(6)}  p95 ${l.p95Ms.toFixed(0).padStart(6)}  p99 ${l.p99Ms.toFixed(0).padStart(6)}`,
    );
  }
  log('memory (RSS of the process / of it and its descendants), start -> end, allowed growth:');
  for (const m of result.memory) {
    log(
      `  ${m.part.padEnd(9)} pid ${String(m.pid).padStart(7)}  ${mib(m.start.rssKiB)} -> ${mib(m.end.rssKiB)}` +
        `  tree (${m.end.groupSize} processes) ${mib(m.start.groupRssKiB)} -> ${mib(m.end.groupRssKiB)}  allowed +${mib(memoryGrowthAllowedKiB(m.start.groupRssKiB))}`,
    );
  }
}

/** Parts whose process tree grew past the bound. */
export function memoryOverBound(result: LoadResult): MemoryRow[] {
  return result.memory.filter((m) => m.end.groupRssKiB - m.start.groupRssKiB > memoryGrowthAllowedKiB(m.start.groupRssKiB));
}
