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

/** The figures of a row from its call durations (milliseconds, any order) and the milliseconds they took. */
export function figures(label: string, concurrency: number, calls: number, errors: number, durations: number[], spanMs: number): Figures {
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    label,
    concurrency,
    calls,
    errors,
    p50Ms: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    p99Ms: percentile(sorted, 99),
    callsPerSecond: sorted.length / (spanMs / 1000),
  };
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
  return figures(label, options.concurrency, options.calls, errors, durations, performance.now() - started);
}

/** One row of `measureInterleaved`: what it is and the call it times. */
export interface Contender {
  label: string;
  op: (i: number) => Promise<unknown>;
  /** Calls in flight during its turns. @default 1 */
  concurrency?: number;
}

/**
 * Times several operations taking turns: in each of `turns` turns every contender in order runs
 * `callsPerLane` calls on each of its `concurrency` lanes, after `warmupTurns` uncounted turns.
 * On a machine shared with other work the load drifts over a run; taking turns lays the drift on
 * every row alike, so their ratios hold where rows measured one after the other would not.
 * `pauseMs` before each turn lets what the previous one left running in the background (closing
 * its pages) end first: one call at a time, each figure is the latency of a call arriving at an
 * idle service. Calls per second: calls done over the time the turns took.
 */
export async function measureInterleaved(
  contenders: Contender[],
  options: { turns: number; callsPerLane?: number; warmupTurns?: number; pauseMs?: number },
): Promise<Figures[]> {
  const rows = contenders.map(() => ({ durations: [] as number[], errors: 0, busyMs: 0 }));
  for (let turn = -(options.warmupTurns ?? 3); turn < options.turns; turn++) {
    for (const [k, { label, op, concurrency = 1 }] of contenders.entries()) {
      await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 0));
      const row = rows[k]!;
      const started = performance.now();
      const lane = async () => {
        for (let n = 0; n < (options.callsPerLane ?? 1); n++) {
          const t = performance.now();
          try {
            await op(turn);
            if (turn >= 0) row.durations.push(performance.now() - t);
          } catch (err) {
            if (turn < 0) throw err; // a warm-up that fails: the row cannot be measured
            if (row.errors++ === 0) console.error(`  ${label}: first error: ${(err as Error).message}`);
          }
        }
      };
      await Promise.all(Array.from({ length: concurrency }, lane));
      if (turn >= 0) row.busyMs += performance.now() - started;
    }
  }
  return contenders.map(({ label, concurrency = 1 }, k) => {
    const { durations, errors, busyMs } = rows[k]!;
    return figures(label, concurrency, options.turns * concurrency * (options.callsPerLane ?? 1), errors, durations, busyMs);
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
