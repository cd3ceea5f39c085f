//! The state changes of a webhook endpoint's workflow, as pure functions: what arrives (an event,
//! the owner's request, an attempt's outcome, a page of missed events, the clock) changes the
//! endpoint's state and says what the workflow must do next (attempts to start, a page to read,
//! when to wake, what to write to the database). No SDK and no I/O: `webhook-endpoint.ts` owns
//! the signals, timers, activities and the loop, and a unit test drives these directly. What they
//! change (the endpoint in a run, what arrives, the limits) is `webhook-endpoint-model.ts`; what
//! arrives and leaves its queue, `webhook-endpoint-queue.ts`.
//!
//! Deliveries are kept and changed in place: an attempt's outcome finds its delivery by identity,
//! so that a delivery ended meanwhile (and perhaps queued again since) is told apart.
//!
//! In a run begun since attempts went out in batches (one activity carrying the attempts a turn
//! of the loop starts), a batch's outcomes come back together, each with the time it ended. An
//! outcome takes its place in the failure count only once no batch started before it ended is
//! still out (`countSettled`), so the count follows the order attempts end, not the order batches
//! return; what an outcome does to its delivery (done, or its retry) happens at once. The end
//! times are the delivery worker's clock and a batch's start the workflow's (the server's): the
//! machines' clocks are assumed to agree to within the time an attempt takes (NTP).
import type { EndpointMirror } from '../domain/webhooks/index.js';
import type {
  CarriedEndpointState,
  PendingDelivery,
  RecoveryState,
  WebhookEndpointState,
  WebhookEnvelope,
} from '../contracts/webhook-messages.js';
import {
  DISABLE_AFTER_FAILURES,
  RECOVERY_PAGE,
  countAfter,
  dueDeliveries,
  firstDue,
  inFlightLimit,
  nextAttemptTime,
  nextWake,
  pruneSeen,
  shouldDisable,
  waitingRecovered,
} from '../contracts/webhook-policy.js';
import type {
  Arrival,
  Batch,
  Books,
  DeliveryLimits,
  DisabledNotice,
  Endpoint,
  Inbox,
  Outcome,
  TimedOutcome,
} from './webhook-endpoint-model.js';
import { apply, endUndelivered, enqueue, receive, remember } from './webhook-endpoint-queue.js';

/** Its types and limits, for the workflow and the tests that drive these functions. */
export type * from './webhook-endpoint-model.js';
export { concurrentLimits, LEGACY_LIMITS } from './webhook-endpoint-model.js';

export const emptyInbox = (): Inbox => ({ events: [], requests: [], enableRequested: false, removed: false });

export function startEndpoint(state: CarriedEndpointState, inbox: Inbox, limits: DeliveryLimits): Endpoint {
  return {
    state,
    limits,
    inbox,
    books: { mirrorWanted: false, undelivered: [], overlapsEnded: [], writing: false },
    inFlight: new Set(),
    batches: new Set(),
    ended: [],
    seenIds: new Set(state.seen.map(([id]) => id)),
    fetching: false,
  };
}

/** Queues what a signal brought. */
export function arrive(inbox: Inbox, a: Arrival): void {
  if (a.kind === 'event') inbox.events.push(a.event);
  else if (a.kind === 'enable') inbox.enableRequested = true;
  else if (a.kind === 'remove') inbox.removed = true;
  else inbox.requests.push(a);
}

/** Applies what arrived since the last turn, then ends due overlaps and a finished recovery. */
export function applyArrivals(m: Endpoint, now: number): void {
  const { state, inbox } = m;
  if (inbox.enableRequested) {
    inbox.enableRequested = false;
    state.disabled = false;
    m.disabledAt = undefined;
    state.consecutiveFailures = 0;
    m.books.mirrorWanted = true;
  }
  for (const e of inbox.events.splice(0)) receive(m, e, now);
  for (const r of inbox.requests.splice(0)) apply(m, r, now);
  if (state.overlaps?.some((o) => o.until <= now)) {
    // The database ends a rotation's overlap only while that rotation is the endpoint's latest.
    for (const o of state.overlaps.filter((o) => o.until <= now)) m.books.overlapsEnded.push(o.rotationId);
    state.overlaps = state.overlaps.filter((o) => o.until > now);
  }
  if (state.recovery?.exhausted && waitingRecovered(state.pending) === 0) state.recovery = undefined;
}

/**
 * What to start now: the next page of a recovery, and the due attempts the in-flight limit
 * allows (marked in flight and counted here), first come first served; in a run begun before
 * deliveries ran concurrently, earliest due first, as that code chose them. Nothing while the run
 * hands over.
 */
export function startWork(m: Endpoint, now: number, handOver: boolean): { page?: RecoveryState; attempts: PendingDelivery[] } {
  const { state } = m;
  const limit = attemptsAllowed(m);
  let page: RecoveryState | undefined;
  if (!handOver && wantsPage(m)) {
    page = state.recovery!;
    m.fetching = true;
  }
  const attempts: PendingDelivery[] = [];
  if (!handOver && !state.disabled) {
    const due =
      m.limits.concurrency === undefined
        ? dueDeliveries(state.pending, m.inFlight, now)
        : firstDue(state.pending, m.inFlight, now, limit - m.inFlight.size);
    for (const d of due) {
      if (m.inFlight.size >= limit) break;
      m.inFlight.add(d.event.id);
      d.attempts++;
      attempts.push(d);
    }
  }
  return { ...(page ? { page } : {}), attempts };
}

/** When the loop must wake by itself: the next due attempt, or the end of an overlap. */
export function nextWakeAt(m: Endpoint, handOver: boolean): number | undefined {
  const { state } = m;
  const deliveryWake =
    handOver || state.disabled || m.inFlight.size >= attemptsAllowed(m) ? undefined : nextWake(state.pending, m.inFlight);
  return earliest(deliveryWake, ...(state.overlaps ?? []).map((o) => o.until));
}

/** Nothing runs, nothing is owed and nothing waits to be applied: the run may hand over. */
export function isQuiet(m: Endpoint): boolean {
  const { inbox } = m;
  return (
    m.inFlight.size === 0 &&
    m.ended.length === 0 &&
    booksSettled(m.books) &&
    !m.fetching &&
    inbox.events.length === 0 &&
    inbox.requests.length === 0 &&
    !inbox.enableRequested &&
    !inbox.removed
  );
}

export const booksOwed = (b: Books) => b.mirrorWanted || b.undelivered.length > 0 || b.overlapsEnded.length > 0;
const booksSettled = (b: Books) => !b.writing && !booksOwed(b);

/** What the next run starts from. */
export function carry(m: Endpoint, now: number): CarriedEndpointState {
  return { ...m.state, seen: pruneSeen(m.state.seen, now) };
}

/** The database's copy of the count and status. */
export function mirrorOf(m: Endpoint, now: number): EndpointMirror {
  const { state } = m;
  return {
    consecutiveFailures: state.consecutiveFailures,
    disabled: state.disabled,
    ...(state.disabled
      ? { disabledAt: m.disabledAt ?? now, disabledReason: `${DISABLE_AFTER_FAILURES} consecutive failed deliveries` }
      : {}),
  };
}

/** The state query's answer. */
export function snapshot(m: Endpoint, run: number): WebhookEndpointState {
  const { state } = m;
  return {
    consecutiveFailures: state.consecutiveFailures,
    disabled: state.disabled,
    pending: state.pending.length,
    inFlight: m.inFlight.size,
    ...(m.limits.concurrency !== undefined ? { concurrency: m.limits.concurrency } : {}),
    run,
    ...(state.overlaps?.length ? { overlapUntil: Math.min(...state.overlaps.map((o) => o.until)) } : {}),
    recovering: state.recovery !== undefined,
  };
}

/**
 * Applies an attempt's outcome to its delivery (whose attempt is no longer in flight) and counts
 * it at once (a run that sends one attempt per activity). Returns what to log when this attempt
 * disabled the endpoint.
 */
export function settleAttempt(m: Endpoint, d: PendingDelivery, result: Outcome, now: number): DisabledNotice | undefined {
  if (!stillPending(m, d, result)) return undefined;
  if (result.outcome !== 'not_attempted') {
    setCount(m, countAfter(m.state.consecutiveFailures, result.outcome === 'delivered'));
    if (shouldDisable(m.state.consecutiveFailures)) return disable(m, now);
  }
  followUp(m, d, result, now);
  return undefined;
}

/** Marks a batch of the due attempts `startWork` chose as out, from `now`. */
export function beginBatch(m: Endpoint, deliveries: PendingDelivery[], now: number): Batch {
  const batch = { startedAt: now, deliveries };
  m.batches.add(batch);
  return batch;
}

/**
 * Applies a batch's outcomes (in the order of its deliveries; none when the activity failed) to
 * their deliveries at once, then counts every returned outcome no batch still out can precede.
 * Returns what to log when the count disabled the endpoint.
 */
export function endBatch(m: Endpoint, batch: Batch, results: readonly TimedOutcome[], now: number): DisabledNotice | undefined {
  m.batches.delete(batch);
  batch.deliveries.forEach((d, i) => {
    m.inFlight.delete(d.event.id);
    const result = results[i] ?? NOT_ATTEMPTED;
    if (!stillPending(m, d, result)) return;
    if (result.outcome !== 'not_attempted') m.ended.push({ endedAt: result.endedAt ?? now, success: result.outcome === 'delivered' });
    followUp(m, d, result, now);
  });
  return countSettled(m, now);
}

/**
 * The count once every outcome returned is counted, in the order they ended: the most failures an
 * attempt out now can still find before it ends is this plus the attempts out (a success among
 * them only lowers it), which is what bounds how many may start.
 */
export function provisionalCount(m: Endpoint): number {
  let count = m.state.consecutiveFailures;
  for (const e of m.ended) count = countAfter(count, e.success);
  return count;
}

/** Queues a page of missed events read for recovery `r` (ignored when that recovery ended meanwhile). */
export function takePage(
  m: Endpoint,
  r: RecoveryState,
  page: { events: WebhookEnvelope[]; after?: [number, string]; exhausted: boolean },
  now: number,
): void {
  if (m.state.recovery !== r) return; // replaced or ended meanwhile
  for (const e of page.events) {
    if (m.state.pending.some((d) => d.event.id === e.id)) continue; // already on its way
    remember(m, e.id, now);
    enqueue(m, { event: e, receivedAt: now, attempts: 0, nextAttemptAt: now, trigger: 'recovery' }, now);
  }
  if (page.after) r.after = page.after;
  if (page.exhausted) r.exhausted = true;
}

// --- Inside the state.

const NOT_ATTEMPTED: Outcome = { outcome: 'not_attempted' };

/**
 * Attempts that may be out at once: the concurrency, fewer as the count (with the outcomes not yet
 * counted) nears the disable, none once it has reached it and waits to be confirmed.
 */
function attemptsAllowed(m: Endpoint): number {
  const count = provisionalCount(m);
  return shouldDisable(count) ? 0 : inFlightLimit(count, m.limits.concurrency);
}

/** False when the outcome has nothing left to change: the endpoint is gone, or the delivery ended meanwhile (a disable). */
function stillPending(m: Endpoint, d: PendingDelivery, result: Outcome): boolean {
  if (result.outcome === 'gone') {
    m.inbox.removed = true; // the endpoint was deleted
    return false;
  }
  return m.state.pending.includes(d);
}

/** What an outcome does to its delivery: done when delivered, else its next attempt on the schedule, or its end. */
function followUp(m: Endpoint, d: PendingDelivery, result: Outcome, now: number) {
  if (result.outcome === 'delivered') {
    m.state.pending.splice(m.state.pending.indexOf(d), 1);
    return;
  }
  // `not_attempted` (our side failed, e.g. a worker died mid-attempt) is retried on the same
  // schedule but not held against the endpoint.
  const next = nextAttemptTime(d.receivedAt, d.attempts, now);
  if (next === null) endUndelivered(m, [d], 'expired', now);
  else d.nextAttemptAt = next;
}

/**
 * Counts, in the order they ended, the outcomes returned that ended before every batch still out
 * began (none of its attempts can come before them). Returns the disable's notice when it came.
 */
function countSettled(m: Endpoint, now: number): DisabledNotice | undefined {
  let horizon = Infinity;
  for (const b of m.batches) horizon = Math.min(horizon, b.startedAt);
  m.ended.sort((a, b) => a.endedAt - b.endedAt);
  let notice: DisabledNotice | undefined;
  while (m.ended.length > 0 && m.ended[0]!.endedAt < horizon) {
    const e = m.ended.shift()!;
    if (m.state.disabled) continue; // nothing counts after the disable
    setCount(m, countAfter(m.state.consecutiveFailures, e.success));
    if (shouldDisable(m.state.consecutiveFailures)) notice = disable(m, now);
  }
  return notice;
}

function setCount(m: Endpoint, count: number) {
  if (count === m.state.consecutiveFailures) return;
  m.state.consecutiveFailures = count;
  m.books.mirrorWanted = true;
}

function disable(m: Endpoint, now: number): DisabledNotice {
  const { state } = m;
  state.disabled = true;
  m.disabledAt = now;
  m.books.mirrorWanted = true;
  const notice = { consecutiveFailures: state.consecutiveFailures, pending: state.pending.length };
  endUndelivered(m, [...state.pending], 'endpoint_disabled', now);
  state.recovery = undefined; // what it would still send ends with the rest
  return notice;
}

/** Recovery reads its next page once fewer than half a page of recovered deliveries wait. */
function wantsPage(m: Endpoint): boolean {
  const r = m.state.recovery;
  return r !== undefined && !r.exhausted && !m.fetching && !m.state.disabled && waitingRecovered(m.state.pending) < RECOVERY_PAGE / 2;
}

function earliest(...times: Array<number | undefined>): number | undefined {
  const known = times.filter((t) => t !== undefined);
  return known.length ? Math.min(...known) : undefined;
}
