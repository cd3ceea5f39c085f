//! Latency and throughput of an async operation at a fixed concurrency: the one measuring
//! loop every benchmark uses, so their figures compare.

export interface Figures {
  label: string;
  concurrency: number;
  calls: number;
  /** Calls that threw; their time is not in the percentiles. */
  errors: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  callsPerSecond: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/**
 * Runs `op` `calls` times with `concurrency` in flight, after `warmup` uncounted calls. A call
 * that throws is counted as an error (the first one is printed) and the run goes on.
 */
export async function measure(
  label: string,
  op: (i: number) => Promise<unknown>,
  options: { calls: number; concurrency: number; warmup?: number },
): Promise<Figures> {
  for (let i = 0; i < (options.warmup ?? Math.min(10, options.calls)); i++) await op(-1 - i);
  const durations: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  async function lane() {
    while (next < options.calls) {
      const i = next++;
      const t = performance.now();
      try {
        await op(i);
        durations.push(performance.now() - t);
      } catch (err) {
        if (errors++ === 0) console.error(`  ${label}: first error: ${(err as Error).message}`);
      }
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  const elapsed = (performance.now() - started) / 1000;
  durations.sort((a, b) => a - b);
  return {
    label,
    concurrency: options.concurrency,
    calls: options.calls,
    errors,
    p50Ms: percentile(durations, 50),
    p95Ms: percentile(durations, 95),
    p99Ms: percentile(durations, 99),
    callsPerSecond: durations.length / elapsed,
  };
}

/** One row of `measureInterleaved`: what it is and the call it times. */
export interface Contender {
  label: string;
  op: (i: number) => Promise<unknown>;
}

/**
 * Times several operations one call at a time, taking turns (a call of the first, then of the
 * second ... then the first again), after `warmup` uncounted turns. On a machine shared with
 * other work the load drifts over a run; taking turns lays the drift on every row alike, so their
 * ratios hold where rows measured one after the other would not. `pauseMs` between calls lets
 * what a call leaves running in the background (closing its page) end before the next starts:
 * each figure is then the latency of a call arriving at an idle service.
 */
export async function measureInterleaved(contenders: Contender[], options: { calls: number; warmup?: number; pauseMs?: number }): Promise<Figures[]> {
  const durations = contenders.map(() => [] as number[]);
  const errors = contenders.map(() => 0);
  const pause = () => new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 0));
  for (let turn = -(options.warmup ?? 3); turn < options.calls; turn++) {
    for (const [k, { label, op }] of contenders.entries()) {
      await pause();
      const t = performance.now();
      try {
        await op(turn);
        if (turn >= 0) durations[k]!.push(performance.now() - t);
      } catch (err) {
        if (turn >= 0 && errors[k]!++ === 0) console.error(`  ${label}: first error: ${(err as Error).message}`);
        if (turn < 0) throw err;
      }
    }
  }
  return contenders.map(({ label }, k) => {
    const sorted = durations[k]!.sort((a, b) => a - b);
    const busySeconds = sorted.reduce((sum, ms) => sum + ms, 0) / 1000;
    return {
      label,
      concurrency: 1,
      calls: options.calls,
      errors: errors[k]!,
      p50Ms: percentile(sorted, 50),
      p95Ms: percentile(sorted, 95),
      p99Ms: percentile(sorted, 99),
      callsPerSecond: sorted.length / busySeconds,
    };
  });
}

export function printTable(title: string, rows: Figures[]): void {
  console.log(`\n${title}`);
  console.table(
    rows.map((r) => ({
      what: r.label,
      concurrency: r.concurrency,
      calls: r.calls,
      errors: r.errors,
      'p50 ms': +r.p50Ms.toFixed(1),
      'p95 ms': +r.p95Ms.toFixed(1),
      'p99 ms': +r.p99Ms.toFixed(1),
      'calls/s': +r.callsPerSecond.toFixed(1),
    })),
  );
}

/** A POST of JSON that must answer 200 (a benchmark's unit of work through the API). */
export async function postJson(url: string, body: unknown, bearer?: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${text.slice(0, 200)}`);
  return text;
}
