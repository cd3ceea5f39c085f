//! One long-lived workflow per webhook endpoint (started by signal-with-start): it receives
//! events, keeps each pending delivery with its next attempt time on durable timers, runs
//! attempts as activities, holds the consecutive-failure count, disables the endpoint at the
//! 20th failure in a row, and continues as new before its history grows large. The count lives
//! here alone, so concurrent attempts cannot race it; the database only mirrors it.
//! On the owner's request it also replays a past event, recovers the events a (disabled) endpoint
//! missed, in order, and ends a rotated secret's overlap window when it is due.
//!
//! Histories written before replay, recovery and rotation existed replay unchanged (a test
//! replays captured ones): those paths add commands only after their own signals.
import {
  ActivityFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { DeliverResult, WebhookActivities } from '../activities/core/webhooks.js';
import {
  WEBHOOK_SIGNALS,
  WEBHOOK_STATE_QUERY,
  type CarriedEndpointState,
  type PendingDelivery,
  type RecoverRequest,
  type RotationNotice,
  type UndeliveredReason,
  type WebhookEndpointInput,
  type WebhookEndpointState,
  type WebhookEnvelope,
} from '../lib/webhook-messages.js';
import {
  DISABLE_AFTER_FAILURES,
  MAX_PENDING,
  RECOVERY_PAGE,
  countAfter,
  dueDeliveries,
  inFlightLimit,
  nextAttemptTime,
  nextWake,
  pruneSeen,
  shouldDisable,
  waitingRecovered,
} from '../lib/webhook-policy.js';

export const webhookEventSignal = defineSignal<[WebhookEnvelope]>(WEBHOOK_SIGNALS.event);
export const webhookEnableSignal = defineSignal(WEBHOOK_SIGNALS.enable);
export const webhookRemoveSignal = defineSignal(WEBHOOK_SIGNALS.remove);
export const webhookReplaySignal = defineSignal<[WebhookEnvelope]>(WEBHOOK_SIGNALS.replay);
export const webhookRecoverSignal = defineSignal<[RecoverRequest]>(WEBHOOK_SIGNALS.recover);
export const webhookRotateSignal = defineSignal<[RotationNotice]>(WEBHOOK_SIGNALS.rotate);
export const webhookStateQuery = defineQuery<WebhookEndpointState>(WEBHOOK_STATE_QUERY);

/**
 * One attempt: at most 10 s of HTTP plus DNS and one insert. Temporal does not retry it: every
 * attempt counts toward the endpoint's failures, so retries follow the contract's schedule here.
 */
const { deliverWebhook } = proxyActivities<WebhookActivities>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 1 } });

/** Bookkeeping writes: small and idempotent, retried until the database answers. */
const books = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', maximumInterval: '1m' },
});

export const DEFAULT_HISTORY_LIMIT = 2000;

type Outcome = DeliverResult | { outcome: 'not_attempted' };

/** The owner's requests, applied by the loop in arrival order. */
type Request =
  | { kind: 'replay'; event: WebhookEnvelope }
  | { kind: 'recover'; span: RecoverRequest }
  | { kind: 'rotate'; notice: RotationNotice };

export async function webhookEndpoint(input: WebhookEndpointInput): Promise<void> {
  const { endpointId } = input;
  const run = (input.previousRuns ?? 0) + 1;

  // Signals only queue work and wake the loop; the loop applies them in arrival order.
  const inbox: WebhookEnvelope[] = [];
  const requests: Request[] = [];
  let enableRequested = false;
  let removed = false;
  let wakeups = 0;
  setHandler(webhookEventSignal, (e) => {
    inbox.push(e);
    wakeups++;
  });
  setHandler(webhookEnableSignal, () => {
    enableRequested = true;
    wakeups++;
  });
  setHandler(webhookRemoveSignal, () => {
    removed = true;
    wakeups++;
  });
  const request = (r: Request) => {
    requests.push(r);
    wakeups++;
  };
  setHandler(webhookReplaySignal, (event) => request({ kind: 'replay', event }));
  setHandler(webhookRecoverSignal, (span) => request({ kind: 'recover', span }));
  setHandler(webhookRotateSignal, (notice) => request({ kind: 'rotate', notice }));

  let state: CarriedEndpointState;
  if (input.carried) {
    state = input.carried;
  } else {
    const status = await books.loadWebhookEndpoint(endpointId);
    if (!status.found) return; // deleted before this workflow started: nothing to deliver to
    state = { pending: [], consecutiveFailures: status.consecutiveFailures, disabled: status.disabled, seen: [] };
  }
  const inFlight = new Set<string>();
  const seenIds = new Set(state.seen.map(([id]) => id));
  setHandler(webhookStateQuery, () => ({
    consecutiveFailures: state.consecutiveFailures,
    disabled: state.disabled,
    pending: state.pending.length,
    inFlight: inFlight.size,
    run,
    ...(state.overlaps?.length ? { overlapUntil: Math.min(...state.overlaps.map((o) => o.until)) } : {}),
    recovering: state.recovery !== undefined,
  }));

  // --- Bookkeeping: the database mirror and undelivered records, written in order by one loop.
  let mirrorWanted = false;
  let disabledAt: number | undefined;
  const undelivered: Array<{ items: Array<{ event: WebhookEnvelope; attempts: number }>; reason: UndeliveredReason; at: number }> = [];
  /** Rotations whose overlap is over: the previous secret is dropped from the database. */
  const overlapsEnded: string[] = [];
  let booksBusy = false;

  async function keepBooks(): Promise<void> {
    for (;;) {
      await condition(() => mirrorWanted || undelivered.length > 0 || overlapsEnded.length > 0);
      booksBusy = true;
      try {
        while (undelivered.length > 0) {
          const batch = undelivered.shift()!;
          await books.recordUndelivered(endpointId, batch.items, batch.reason, batch.at);
        }
        while (overlapsEnded.length > 0) await books.endSecretOverlap(endpointId, overlapsEnded.shift()!);
        if (mirrorWanted) {
          mirrorWanted = false;
          await books.mirrorWebhookEndpoint(endpointId, {
            consecutiveFailures: state.consecutiveFailures,
            disabled: state.disabled,
            ...(state.disabled ? { disabledAt: disabledAt ?? Date.now(), disabledReason: `${DISABLE_AFTER_FAILURES} consecutive failed deliveries` } : {}),
          });
        }
      } finally {
        booksBusy = false;
        wakeups++;
      }
    }
  }
  const booksIdle = () => !booksBusy && !mirrorWanted && undelivered.length === 0 && overlapsEnded.length === 0;

  function endUndelivered(deliveries: PendingDelivery[], reason: UndeliveredReason, now: number) {
    if (deliveries.length === 0) return;
    const ended = new Set(deliveries);
    state.pending = state.pending.filter((d) => !ended.has(d));
    undelivered.push({ items: deliveries.map((d) => ({ event: d.event, attempts: d.attempts })), reason, at: now });
  }

  function setCount(count: number) {
    if (count === state.consecutiveFailures) return;
    state.consecutiveFailures = count;
    mirrorWanted = true;
  }

  function disable(now: number) {
    state.disabled = true;
    disabledAt = now;
    mirrorWanted = true;
    log.info('webhook endpoint disabled', { endpointId, consecutiveFailures: state.consecutiveFailures, pending: state.pending.length });
    endUndelivered([...state.pending], 'endpoint_disabled', now);
    state.recovery = undefined; // what it would still send ends with the rest
  }

  // --- Applying what arrived.
  /**
   * Remembers an event id; false when it was already seen. Events sent on request are remembered
   * too, so that a late fan-out of one is not delivered again.
   */
  function remember(id: string, now: number): boolean {
    if (seenIds.has(id)) return false;
    seenIds.add(id);
    state.seen.push([id, now]);
    return true;
  }

  function receive(e: WebhookEnvelope, now: number) {
    if (!remember(e.id, now)) return; // a re-sent event: already handled
    if (state.disabled) {
      // Nothing is posted to a disabled endpoint; the event ends here, with the reason on record.
      undelivered.push({ items: [{ event: e, attempts: 0 }], reason: 'endpoint_disabled', at: now });
      return;
    }
    enqueue({ event: e, receivedAt: now, attempts: 0, nextAttemptAt: now }, now);
  }

  function enqueue(d: PendingDelivery, now: number) {
    state.pending.push(d);
    if (state.pending.length > MAX_PENDING) {
      const oldest = state.pending.find((p) => !inFlight.has(p.event.id));
      if (oldest) endUndelivered([oldest], 'backlog_full', now);
    }
  }

  // --- The owner's requests.
  function apply(r: Request, now: number) {
    switch (r.kind) {
      case 'rotate':
        (state.overlaps ??= []).push({ rotationId: r.notice.rotationId, until: now + r.notice.overlapMs });
        return;
      case 'replay':
        return replay(r.event, now);
      case 'recover':
        if (state.disabled) return; // the API re-enables first; a disable in between ends it
        state.recovery = { since: r.span.since, until: r.span.until, exhausted: false };
        return;
    }
  }

  /** A new attempt of a past event; one still pending is simply attempted now. */
  function replay(e: WebhookEnvelope, now: number) {
    if (state.disabled) return; // the API refuses a replay to a disabled endpoint
    remember(e.id, now);
    const pending = state.pending.find((d) => d.event.id === e.id);
    if (pending) {
      if (inFlight.has(e.id)) return; // an attempt is running right now
      pending.nextAttemptAt = now;
      pending.trigger = 'replay';
      return;
    }
    enqueue({ event: e, receivedAt: now, attempts: 0, nextAttemptAt: now, trigger: 'replay' }, now);
  }

  // --- Recovery: pages of missed events, read as the queue drains.
  let fetching = false;
  const wantsPage = () => {
    const r = state.recovery;
    return r !== undefined && !r.exhausted && !fetching && !state.disabled && waitingRecovered(state.pending) < RECOVERY_PAGE / 2;
  };

  async function fetchRecovery(): Promise<void> {
    const r = state.recovery!;
    fetching = true;
    try {
      const page = await books.missedWebhookEvents({ endpointId, since: r.since, until: r.until, after: r.after, limit: RECOVERY_PAGE });
      if (state.recovery !== r) return; // replaced or ended meanwhile
      const now = Date.now();
      for (const e of page.events) {
        if (state.pending.some((d) => d.event.id === e.id)) continue; // already on its way
        remember(e.id, now);
        enqueue({ event: e, receivedAt: now, attempts: 0, nextAttemptAt: now, trigger: 'recovery' }, now);
      }
      if (page.after) r.after = page.after;
      if (page.exhausted) r.exhausted = true;
    } finally {
      fetching = false;
      wakeups++;
    }
  }

  function settle(d: PendingDelivery, result: Outcome, now: number) {
    if (result.outcome === 'gone') {
      removed = true; // the endpoint was deleted
      return;
    }
    // Ended meanwhile (the endpoint was disabled by another attempt): the count stays as it was.
    if (!state.pending.includes(d)) return;
    if (result.outcome === 'delivered') {
      state.pending = state.pending.filter((p) => p !== d);
      setCount(countAfter(state.consecutiveFailures, true));
      return;
    }
    if (result.outcome === 'failed') {
      setCount(countAfter(state.consecutiveFailures, false));
      if (shouldDisable(state.consecutiveFailures)) {
        disable(now);
        return;
      }
    }
    // `not_attempted` (our side failed, e.g. a worker died mid-attempt) is retried on the same
    // schedule but not held against the endpoint.
    const next = nextAttemptTime(d.receivedAt, d.attempts, now);
    if (next === null) endUndelivered([d], 'expired', now);
    else d.nextAttemptAt = next;
  }

  async function attempt(d: PendingDelivery): Promise<void> {
    inFlight.add(d.event.id);
    d.attempts++;
    let result: Outcome;
    try {
      result = await deliverWebhook({ endpointId, event: d.event, attempt: d.attempts, ...(d.trigger ? { trigger: d.trigger } : {}) });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      result = { outcome: 'not_attempted' };
    } finally {
      inFlight.delete(d.event.id);
      wakeups++;
    }
    settle(d, result, Date.now());
  }

  // Durable wake-ups for the next due attempt. A timer is never cancelled; one no longer needed
  // only wakes the loop once more. (Cancelling a timer in the same moment the server fires it is
  // a race the time-skipping test server rejects outright.)
  const timers = new Set<number>();
  function wakeAt(at: number, now: number) {
    for (const t of timers) if (t <= at) return; // an earlier wake-up is coming anyway
    timers.add(at);
    void sleep(Math.max(1, at - now)).then(() => {
      timers.delete(at);
      wakeups++;
    });
  }

  void keepBooks();

  for (;;) {
    const now = Date.now();
    if (removed) return;
    if (enableRequested) {
      enableRequested = false;
      state.disabled = false;
      disabledAt = undefined;
      state.consecutiveFailures = 0;
      mirrorWanted = true;
    }
    for (const e of inbox.splice(0)) receive(e, now);
    for (const r of requests.splice(0)) apply(r, now);
    if (state.overlaps?.some((o) => o.until <= now)) {
      // The database ends a rotation's overlap only while that rotation is the endpoint's latest.
      for (const o of state.overlaps.filter((o) => o.until <= now)) overlapsEnded.push(o.rotationId);
      state.overlaps = state.overlaps.filter((o) => o.until > now);
    }
    if (state.recovery?.exhausted && waitingRecovered(state.pending) === 0) state.recovery = undefined;

    const info = workflowInfo();
    const handOver = info.continueAsNewSuggested || info.historyLength >= (input.historyLimit ?? DEFAULT_HISTORY_LIMIT);
    const limit = inFlightLimit(state.consecutiveFailures);
    if (!handOver && wantsPage()) void fetchRecovery();
    if (!handOver && !state.disabled) {
      for (const d of dueDeliveries(state.pending, inFlight, now)) {
        if (inFlight.size >= limit) break;
        void attempt(d);
      }
    }
    const quiet = () => inFlight.size === 0 && booksIdle() && !fetching && inbox.length === 0 && requests.length === 0 && !enableRequested && !removed;
    if (handOver && quiet()) {
      await condition(allHandlersFinished);
      // A signal may have arrived while we waited: apply it first, never carry it off unread.
      if (quiet()) {
        const carried: CarriedEndpointState = { ...state, seen: pruneSeen(state.seen, Date.now()) };
        return continueAsNew<typeof webhookEndpoint>({ ...input, carried, previousRuns: run });
      }
      continue;
    }

    const deliveryWake = handOver || state.disabled || inFlight.size >= limit ? undefined : nextWake(state.pending, inFlight);
    const wake = earliest(deliveryWake, ...(state.overlaps ?? []).map((o) => o.until));
    if (wake !== undefined) wakeAt(wake, now);
    const seen = wakeups;
    await condition(() => wakeups !== seen || removed);
  }
}

function earliest(...times: Array<number | undefined>): number | undefined {
  const known = times.filter((t) => t !== undefined);
  return known.length ? Math.min(...known) : undefined;
}
