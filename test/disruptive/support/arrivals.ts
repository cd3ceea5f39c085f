//! An open-loop request generator: arrivals at a fixed rate whatever the answers' latency, as
//! real clients behave, so a slow service builds a queue instead of slowing the test down.

export interface ArrivalOptions {
  ratePerSecond: number;
  /** Stop after this many arrivals ... */
  count?: number;
  /** ... or after this long, whichever comes first. */
  durationMs?: number;
  /**
   * Arrivals beyond this many calls in flight are dropped (counted, not sent): a bound on the
   * client's own memory when the service stalls, e.g. while Temporal restarts.
   */
  maxInFlight: number;
  /** Keep going past `count` while this returns true (faults still being injected). */
  extendWhile?: () => boolean;
}

export interface ArrivalReport {
  sent: number;
  dropped: number;
  elapsedMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `fire(i)` at the fixed rate; resolves once every fired call has settled. */
export async function atFixedRate(options: ArrivalOptions, fire: (i: number) => Promise<unknown>): Promise<ArrivalReport> {
  const started = performance.now();
  const intervalMs = 1000 / options.ratePerSecond;
  const inFlight = new Set<Promise<unknown>>();
  let sent = 0;
  let dropped = 0;
  for (let i = 0; ; i++) {
    const elapsed = performance.now() - started;
    const countDone = options.count !== undefined && sent + dropped >= options.count && !options.extendWhile?.();
    if (countDone || (options.durationMs !== undefined && elapsed >= options.durationMs)) break;
    await sleep(Math.max(0, i * intervalMs - elapsed));
    if (inFlight.size >= options.maxInFlight) {
      dropped++;
      continue;
    }
    const call = fire(sent++).catch(() => {});
    inFlight.add(call);
    void call.finally(() => inFlight.delete(call));
  }
  await Promise.all(inFlight);
  return { sent, dropped, elapsedMs: performance.now() - started };
}
