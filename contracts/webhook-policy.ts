//! The delivery policy of a webhook endpoint as pure functions of its state: the retry schedule,
//! the 3-day limit, the consecutive-failure count, how many attempts run at once, the memory of
//! event ids already seen, the order of recovered deliveries, and the secret rotation's overlap.
//! Deterministic and free of I/O, so the workflow can use it and tests can check it directly.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits after the 1st, 2nd, ... failed attempt (docs/WEBHOOKS.md); every later one waits 2 h. */
export const RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR];
export const LATER_RETRY_DELAY_MS = 2 * HOUR;

/** A delivery is given up when its next attempt would fall later than this after it arrived. */
export const MAX_DELIVERY_AGE_MS = 3 * 24 * HOUR;

/** The 20th consecutive failed attempt disables the endpoint. */
export const DISABLE_AFTER_FAILURES = 20;

/**
 * Attempts of one endpoint running at once (WEBHOOK_ENDPOINT_CONCURRENCY). A burst at one endpoint
 * drains at the lesser of concurrency / the receiver's answer time and the pace at which the
 * machine runs the endpoint's workflow, its batches of attempts and their records (docs/BENCHMARKS.md,
 * Webhooks): 16 keeps a receiver answering within 200 ms at 80 deliveries a second, beyond that
 * pace on the two-core bench machine, while a receiver that hangs holds at most 16 sockets, and
 * for about 20 s: its 20 failures come in two rounds of the 10 s wait (16, then 4).
 */
export const DEFAULT_ENDPOINT_CONCURRENCY = 16;
/** The most WEBHOOK_ENDPOINT_CONCURRENCY may be: an endpoint's batches out at once hold up to this many slots of the delivery worker. */
export const MAX_ENDPOINT_CONCURRENCY = 64;

/** Deliveries an endpoint may hold (a burst of this many is delivered whole); past it the oldest ends undelivered (`backlog_full`). */
export const MAX_PENDING = 10_000;

/**
 * The limits of a run begun before deliveries ran concurrently, which it keeps until it continues
 * as new (so its history replays): 8 attempts at once while healthy, one once an attempt failed,
 * and 1,000 deliveries held.
 */
export const LEGACY_MAX_IN_FLIGHT = 8;
export const LEGACY_MAX_PENDING = 1000;

/** How long an event id is remembered: longer than the fan-out sweep re-sends anything. */
export const SEEN_TTL_MS = 4 * 24 * HOUR;
export const MAX_SEEN = 10_000;

/** A rotated signing secret's predecessor keeps signing this long, unless the owner ends it sooner. */
export const SECRET_OVERLAP_MS = 24 * HOUR;

/**
 * The longest one run of an endpoint's workflow lasts before it continues as new, however quiet:
 * well inside the 25 h a claim-checked payload (a run's input over 128 KB) is kept
 * (activities/core/sweeper.ts), so replaying a run always finds what it was handed.
 */
export const MAX_RUN_MS = 12 * HOUR;

/** Recovered events are read this many at a time; the next page once fewer than half wait. */
export const RECOVERY_PAGE = 50;

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

/**
 * How many attempts may run at once: the endpoint's concurrency, but never more than the failures
 * it still takes to disable it. Attempts in flight plus the count then never pass 20, so the
 * attempt that reaches the 20th failure is the only one in flight when it disables, whatever the
 * concurrency: nothing ends after the disable, and every attempt posted is counted in the order
 * attempts end. `concurrency` absent: a run begun before (LEGACY_MAX_IN_FLIGHT while healthy,
 * then one at a time).
 */
export function inFlightLimit(consecutiveFailures: number, concurrency?: number): number {
  if (concurrency === undefined) return consecutiveFailures === 0 ? LEGACY_MAX_IN_FLIGHT : 1;
  return Math.max(1, Math.min(concurrency, DISABLE_AFTER_FAILURES - consecutiveFailures));
}

/** A concurrency as given (configuration, a workflow's input) held to 1..MAX_ENDPOINT_CONCURRENCY. */
export function endpointConcurrency(value: number | undefined): number {
  if (value === undefined || !Number.isFinite(value)) return DEFAULT_ENDPOINT_CONCURRENCY;
  return Math.min(MAX_ENDPOINT_CONCURRENCY, Math.max(1, Math.floor(value)));
}

/** Event ids seen recently, oldest first. */
export type SeenEvents = Array<[eventId: string, receivedAt: number]>;

/** Drops ids older than the TTL and keeps at most `MAX_SEEN` of the newest. */
export function pruneSeen(seen: SeenEvents, now: number): SeenEvents {
  const fresh = seen.filter(([, at]) => now - at < SEEN_TTL_MS);
  return fresh.length > MAX_SEEN ? fresh.slice(fresh.length - MAX_SEEN) : fresh;
}

interface Schedulable {
  event: { id: string };
  nextAttemptAt: number;
  attempts: number;
  trigger?: string;
}

/**
 * Deliveries that may start an attempt, in queue order, leaving out those in flight. Recovered
 * deliveries go out one after another in the order they were queued (the order their events
 * happened): each waits until the one before has had its first attempt. A recovered delivery that
 * failed is retried on the usual schedule without holding the others back.
 */
export function startable<T extends Schedulable>(pending: readonly T[], inFlight: ReadonlySet<string>): T[] {
  let gateTaken = pending.some((d) => d.trigger === 'recovery' && d.attempts === 1 && inFlight.has(d.event.id));
  return pending.filter((d) => {
    if (inFlight.has(d.event.id)) return false;
    if (d.trigger !== 'recovery' || d.attempts > 0) return true;
    if (gateTaken) return false;
    gateTaken = true;
    return true;
  });
}

/** Recovered deliveries still waiting for their first attempt. */
export const waitingRecovered = (pending: readonly Schedulable[]) =>
  pending.filter((d) => d.trigger === 'recovery' && d.attempts === 0).length;

/** Deliveries due at `now`, earliest first, not counting those already in flight or waiting their turn. */
export function dueDeliveries<T extends Schedulable>(pending: readonly T[], inFlight: ReadonlySet<string>, now: number): T[] {
  return startable(pending, inFlight)
    .filter((d) => d.nextAttemptAt <= now)
    .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt);
}

/**
 * Up to `count` deliveries that may start now, in queue order (the order they reached the
 * endpoint): what `startable` allows and is due, taken from the front. It stops at the `count`-th,
 * so a turn of the workflow's loop costs the attempts it starts, not the backlog behind them.
 */
export function firstDue<T extends Schedulable>(pending: readonly T[], inFlight: ReadonlySet<string>, now: number, count: number): T[] {
  const picked: T[] = [];
  let gateTaken: boolean | undefined; // as in `startable`, read only once a recovered delivery waits
  for (const d of pending) {
    if (picked.length >= count) break;
    if (inFlight.has(d.event.id)) continue;
    if (d.trigger === 'recovery' && d.attempts === 0) {
      gateTaken ??= pending.some((p) => p.trigger === 'recovery' && p.attempts === 1 && inFlight.has(p.event.id));
      if (gateTaken) continue;
      gateTaken = true;
    }
    if (d.nextAttemptAt <= now) picked.push(d);
  }
  return picked;
}

/** The earliest next attempt among deliveries that may start, if any. */
export function nextWake<T extends Schedulable>(pending: readonly T[], inFlight: ReadonlySet<string>): number | undefined {
  let wake: number | undefined;
  for (const d of startable(pending, inFlight)) if (wake === undefined || d.nextAttemptAt < wake) wake = d.nextAttemptAt;
  return wake;
}
