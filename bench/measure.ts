//! Latency and throughput of an async operation at a fixed concurrency: the one measuring
//! loop every benchmark uses, so their figures compare.

export interface Figures {
  label: string;
  concurrency: number;
  calls: number;
  p50Ms: number;
  p99Ms: number;
  callsPerSecond: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** Runs `op` `calls` times with `concurrency` in flight; a warm-up round is not counted. */
export async function measure(label: string, op: (i: number) => Promise<unknown>, options: { calls: number; concurrency: number; warmup?: number }): Promise<Figures> {
  for (let i = 0; i < (options.warmup ?? Math.min(10, options.calls)); i++) await op(-1 - i);
  const durations: number[] = [];
  let next = 0;
  const started = performance.now();
  async function lane() {
    while (next < options.calls) {
      const i = next++;
      const t = performance.now();
      await op(i);
      durations.push(performance.now() - t);
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  const elapsed = (performance.now() - started) / 1000;
  durations.sort((a, b) => a - b);
  return {
    label,
    concurrency: options.concurrency,
    calls: options.calls,
    p50Ms: percentile(durations, 50),
    p99Ms: percentile(durations, 99),
    callsPerSecond: options.calls / elapsed,
  };
}

export function printTable(title: string, rows: Figures[]): void {
  console.log(`\n${title}`);
  console.table(
    rows.map((r) => ({
      what: r.label,
      concurrency: r.concurrency,
      calls: r.calls,
      'p50 ms': +r.p50Ms.toFixed(2),
      'p99 ms': +r.p99Ms.toFixed(2),
      'calls/s': +r.callsPerSecond.toFixed(1),
    })),
  );
}
