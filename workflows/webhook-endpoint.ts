//! One long-lived workflow per webhook endpoint (started by signal-with-start): it receives
//! events, keeps each pending delivery with its next attempt time on durable timers, runs
//! attempts as activities, holds the consecutive-failure count, disables the endpoint at the
//! 20th failure in a row, and continues as new before its history grows large. The count lives
//! here alone, so concurrent attempts cannot race it; the database only mirrors it.
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
  type UndeliveredReason,
  type WebhookEndpointInput,
  type WebhookEndpointState,
  type WebhookEnvelope,
} from '../lib/webhook-messages.js';
import {
  DISABLE_AFTER_FAILURES,
  MAX_PENDING,
  countAfter,
  dueDeliveries,
  inFlightLimit,
  nextAttemptTime,
  nextWake,
  pruneSeen,
  shouldDisable,
} from '../lib/webhook-policy.js';

export const webhookEventSignal = defineSignal<[WebhookEnvelope]>(WEBHOOK_SIGNALS.event);
export const webhookEnableSignal = defineSignal(WEBHOOK_SIGNALS.enable);
export const webhookRemoveSignal = defineSignal(WEBHOOK_SIGNALS.remove);
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

export async function webhookEndpoint(input: WebhookEndpointInput): Promise<void> {
  const { endpointId } = input;
  const run = (input.previousRuns ?? 0) + 1;

  // Signals only queue work and wake the loop; the loop applies them in arrival order.
  const inbox: WebhookEnvelope[] = [];
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
  }));

  // --- Bookkeeping: the database mirror and undelivered records, written in order by one loop.
  let mirrorWanted = false;
  let disabledAt: number | undefined;
  const undelivered: Array<{ items: Array<{ event: WebhookEnvelope; attempts: number }>; reason: UndeliveredReason; at: number }> = [];
  let booksBusy = false;

  async function keepBooks(): Promise<void> {
    for (;;) {
      await condition(() => mirrorWanted || undelivered.length > 0);
      booksBusy = true;
      try {
        while (undelivered.length > 0) {
          const batch = undelivered.shift()!;
          await books.recordUndelivered(endpointId, batch.items, batch.reason, batch.at);
        }
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
  const booksIdle = () => !booksBusy && !mirrorWanted && undelivered.length === 0;

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
  }

  // --- Applying what arrived.
  function receive(e: WebhookEnvelope, now: number) {
    if (seenIds.has(e.id)) return; // a re-sent event: already handled
    seenIds.add(e.id);
    state.seen.push([e.id, now]);
    if (state.disabled) {
      // Nothing is posted to a disabled endpoint; the event ends here, with the reason on record.
      undelivered.push({ items: [{ event: e, attempts: 0 }], reason: 'endpoint_disabled', at: now });
      return;
    }
    state.pending.push({ event: e, receivedAt: now, attempts: 0, nextAttemptAt: now });
    if (state.pending.length > MAX_PENDING) {
      const oldest = state.pending.find((d) => !inFlight.has(d.event.id));
      if (oldest) endUndelivered([oldest], 'backlog_full', now);
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
      result = await deliverWebhook({ endpointId, event: d.event, attempt: d.attempts });
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

    const info = workflowInfo();
    const handOver = info.continueAsNewSuggested || info.historyLength >= (input.historyLimit ?? DEFAULT_HISTORY_LIMIT);
    const limit = inFlightLimit(state.consecutiveFailures);
    if (!handOver && !state.disabled) {
      for (const d of dueDeliveries(state.pending, inFlight, now)) {
        if (inFlight.size >= limit) break;
        void attempt(d);
      }
    }
    const quiet = () => inFlight.size === 0 && booksIdle() && inbox.length === 0 && !enableRequested && !removed;
    if (handOver && quiet()) {
      await condition(allHandlersFinished);
      // A signal may have arrived while we waited: apply it first, never carry it off unread.
      if (quiet()) {
        const carried: CarriedEndpointState = { ...state, seen: pruneSeen(state.seen, Date.now()) };
        return continueAsNew<typeof webhookEndpoint>({ ...input, carried, previousRuns: run });
      }
      continue;
    }

    const wake = handOver || state.disabled || inFlight.size >= limit ? undefined : nextWake(state.pending, inFlight);
    if (wake !== undefined) wakeAt(wake, now);
    const seen = wakeups;
    await condition(() => wakeups !== seen || removed);
  }
}
