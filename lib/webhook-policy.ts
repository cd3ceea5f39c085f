//! The delivery policy of a webhook endpoint as pure functions of its state: the retry schedule,
//! the 3-day limit, the consecutive-failure count, and the memory of event ids already seen.
//! Deterministic and free of I/O, so the workflow can use it and tests can check it directly.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits after the 1st, 2nd, ... failed attempt (CONTRACT.md); every later one waits 2 h. */
export const RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR];
export const LATER_RETRY_DELAY_MS = 2 * HOUR;

/** A delivery is given up when its next attempt would fall later than this after it arrived. */
export const MAX_DELIVERY_AGE_MS = 3 * 24 * HOUR;

/** The 20th consecutive failed attempt disables the endpoint. */
export const DISABLE_AFTER_FAILURES = 20;

/** Attempts of one endpoint running at once while it is healthy; a failing one gets one at a time. */
export const MAX_IN_FLIGHT = 8;

/** Deliveries an endpoint may hold; past it the oldest ends undelivered (`backlog_full`). */
export const MAX_PENDING = 1000;

/** How long an event id is remembered: longer than the fan-out sweep re-sends anything. */
export const SEEN_TTL_MS = 4 * 24 * HOUR;
export const MAX_SEEN = 10_000;

/** The wait after the `failedAttempts`-th failed attempt of one delivery (1-based). */
export function retryDelayMs(failedAttempts: number): number {
  if (!Number.isInteger(failedAttempts) || failedAttempts < 1) throw new RangeError(`failedAttempts must be >= 1, got ${failedAttempts}`);
  return RETRY_DELAYS_MS[failedAttempts - 1] ?? LATER_RETRY_DELAY_MS;
}

/**
 * When the next attempt of a delivery that arrived at `receivedAt` runs, after its
 * `failedAttempts`-th failure ended at `now`; null when that would pass the 3-day limit.
 */
export function nextAttemptTime(receivedAt: number, failedAttempts: number, now: number): number | null {
  const next = now + retryDelayMs(failedAttempts);
  return next - receivedAt > MAX_DELIVERY_AGE_MS ? null : next;
}

/**
 * Offsets from the first attempt of every attempt a delivery gets when each one fails at once:
 * the whole schedule, for documentation and tests.
 */
export function attemptOffsets(): number[] {
  const offsets = [0];
  for (;;) {
    const next = nextAttemptTime(0, offsets.length, offsets.at(-1)!);
    if (next === null) return offsets;
    offsets.push(next);
  }
}

/** The consecutive-failure count after one attempt: any success resets it. */
export function countAfter(consecutiveFailures: number, success: boolean): number {
  return success ? 0 : consecutiveFailures + 1;
}

export const shouldDisable = (consecutiveFailures: number) => consecutiveFailures >= DISABLE_AFTER_FAILURES;

/** How many attempts may run at once: a failing endpoint is probed one attempt at a time, so
 * the attempt that reaches the 20th failure is the only one in flight when it disables. */
export function inFlightLimit(consecutiveFailures: number): number {
  return consecutiveFailures === 0 ? MAX_IN_FLIGHT : 1;
}

/** Event ids seen recently, oldest first. */
export type SeenEvents = Array<[eventId: string, receivedAt: number]>;

/** Drops ids older than the TTL and keeps at most `MAX_SEEN` of the newest. */
export function pruneSeen(seen: SeenEvents, now: number): SeenEvents {
  const fresh = seen.filter(([, at]) => now - at < SEEN_TTL_MS);
  return fresh.length > MAX_SEEN ? fresh.slice(fresh.length - MAX_SEEN) : fresh;
}

/** Deliveries due at `now`, earliest first, not counting those already in flight. */
export function dueDeliveries<T extends { event: { id: string }; nextAttemptAt: number }>(pending: readonly T[], inFlight: ReadonlySet<string>, now: number): T[] {
  return pending.filter((d) => d.nextAttemptAt <= now && !inFlight.has(d.event.id)).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt);
}

/** The earliest next attempt among deliveries not in flight, if any. */
export function nextWake<T extends { event: { id: string }; nextAttemptAt: number }>(pending: readonly T[], inFlight: ReadonlySet<string>): number | undefined {
  let wake: number | undefined;
  for (const d of pending) if (!inFlight.has(d.event.id) && (wake === undefined || d.nextAttemptAt < wake)) wake = d.nextAttemptAt;
  return wake;
}
