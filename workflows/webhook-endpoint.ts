//! One long-lived workflow per webhook endpoint (started by signal-with-start): it receives
//! events, keeps each pending delivery with its next attempt time on durable timers, runs up to
//! WEBHOOK_ENDPOINT_CONCURRENCY attempts at once as activities on the delivery queue, holds the
//! consecutive-failure count (in the order attempts end), disables the endpoint at the 20th
//! failure in a row, and continues as new before its history grows large. The count lives here
//! alone, so concurrent attempts cannot race it; the database only mirrors it.
//! On the owner's request it also replays a past event, recovers the events a (disabled) endpoint
//! missed, in order, and ends a rotated secret's overlap window when it is due.
//!
//! What each arrival does to the state is `webhook-endpoint-state.ts` (pure); this file holds
//! the signals, the timers, the activities and the loop that runs them.
//!
//! The attempts one turn of the loop starts go out together as one activity (a batch): a burst
//! costs Temporal a task per batch, not per attempt, and each outcome still counts in the order
//! attempts end (`endBatch`).
//!
//! Histories written before replay, recovery and rotation existed replay unchanged (a test
//! replays captured ones): those paths add commands only after their own signals. Runs begun
//! before deliveries ran concurrently (no `CONCURRENT_DELIVERIES` marker in their history) keep
//! the old limits and the core queue until they continue as new; runs begun before attempts went
//! out in batches (no `BATCHED_DELIVERIES` marker) keep one activity per attempt.
import {
  ActivityFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/core/webhooks.js';
import {
  WEBHOOK_SIGNALS,
  WEBHOOK_STATE_QUERY,
  type CarriedEndpointState,
  type PendingDelivery,
  type RecoverRequest,
  type RecoveryState,
  type RotationNotice,
  type WebhookEndpointInput,
  type WebhookEndpointState,
  type WebhookEnvelope,
} from '../contracts/webhook-messages.js';
import { endpointConcurrency, MAX_RUN_MS, RECOVERY_PAGE } from '../contracts/webhook-policy.js';
import { webhookDeliveryQueue } from '../contracts/temporal-names.js';
import {
  applyArrivals,
  arrive,
  beginBatch,
  endBatch,
  booksOwed,
  carry,
  concurrentLimits,
  emptyInbox,
  LEGACY_LIMITS,
  isQuiet,
  mirrorOf,
  nextWakeAt,
  settleAttempt,
  snapshot,
  startEndpoint,
  startWork,
  takePage,
  type Arrival,
  type Batch,
  type Outcome,
  type TimedOutcome,
} from './webhook-endpoint-state.js';

export const webhookEventSignal = defineSignal<[WebhookEnvelope]>(WEBHOOK_SIGNALS.event);
export const webhookEventsSignal = defineSignal<[WebhookEnvelope[]]>(WEBHOOK_SIGNALS.events);
export const webhookEnableSignal = defineSignal(WEBHOOK_SIGNALS.enable);
export const webhookRemoveSignal = defineSignal(WEBHOOK_SIGNALS.remove);
export const webhookReplaySignal = defineSignal<[WebhookEnvelope]>(WEBHOOK_SIGNALS.replay);
export const webhookRecoverSignal = defineSignal<[RecoverRequest]>(WEBHOOK_SIGNALS.recover);
export const webhookRotateSignal = defineSignal<[RotationNotice]>(WEBHOOK_SIGNALS.rotate);
export const webhookStateQuery = defineQuery<WebhookEndpointState>(WEBHOOK_STATE_QUERY);

/**
 * One attempt: at most 10 s of HTTP plus DNS and one insert. Temporal does not retry it: every
 * attempt counts toward the endpoint's failures, so retries follow the contract's schedule here.
 * On a queue of their own, whose worker's slots no other activity takes: a slow receiver holds
 * only its endpoint's few (WEBHOOK_ENDPOINT_CONCURRENCY), never the core queue's.
 */
const attemptOptions = { startToCloseTimeout: '30s', retry: { maximumAttempts: 1 } } as const;
/** Attempts of a run begun before the delivery queue existed, on the workflow's own (core) queue. */
const legacyDelivery = proxyActivities<WebhookActivities>(attemptOptions);

/** Marks runs begun since deliveries ran concurrently, on their own queue (`patched`). */
export const CONCURRENT_DELIVERIES = 'webhook-endpoint-concurrent-deliveries';
/** Marks runs begun since the attempts a turn starts went out as one activity (`patched`). */
export const BATCHED_DELIVERIES = 'webhook-endpoint-batched-deliveries';

/** Bookkeeping writes: small and idempotent, retried until the database answers. */
const books = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', maximumInterval: '1m' },
});

export const DEFAULT_HISTORY_LIMIT = 2000;

export async function webhookEndpoint(input: WebhookEndpointInput): Promise<void> {
  const { endpointId } = input;
  const run = (input.previousRuns ?? 0) + 1;

  // Signals only queue work and wake the loop; the loop applies them in arrival order.
  const inbox = emptyInbox();
  let wakeups = 0;
  const signalled = (a: Arrival) => {
    arrive(inbox, a);
    wakeups++;
  };
  setHandler(webhookEventSignal, (event) => signalled({ kind: 'event', event }));
  setHandler(webhookEventsSignal, (events) => {
    for (const event of events) signalled({ kind: 'event', event });
  });
  setHandler(webhookEnableSignal, () => signalled({ kind: 'enable' }));
  setHandler(webhookRemoveSignal, () => signalled({ kind: 'remove' }));
  setHandler(webhookReplaySignal, (event) => signalled({ kind: 'replay', event }));
  setHandler(webhookRecoverSignal, (span) => signalled({ kind: 'recover', span }));
  setHandler(webhookRotateSignal, (notice) => signalled({ kind: 'rotate', notice }));

  // False only while replaying a run that began before (its history has no marker).
  const concurrent = patched(CONCURRENT_DELIVERIES);
  const batched = concurrent && patched(BATCHED_DELIVERIES);
  const { deliverWebhook, deliverWebhooks } = concurrent
    ? proxyActivities<WebhookActivities>({ ...attemptOptions, taskQueue: webhookDeliveryQueue(workflowInfo().taskQueue) })
    : legacyDelivery;

  let state: CarriedEndpointState;
  if (input.carried) {
    state = input.carried;
  } else {
    const status = await books.loadWebhookEndpoint(endpointId);
    if (!status.found) return; // deleted before this workflow started: nothing to deliver to
    state = { pending: [], consecutiveFailures: status.consecutiveFailures, disabled: status.disabled, seen: [] };
  }
  // Read as each run starts, so a changed setting reaches every endpoint at its next run.
  const limits = concurrent
    ? concurrentLimits(endpointConcurrency(input.concurrency ?? (await books.webhookDeliverySettings()).concurrency))
    : LEGACY_LIMITS;
  const m = startEndpoint(state, inbox, limits);
  setHandler(webhookStateQuery, () => snapshot(m, run));

  /** The database mirror and undelivered records, written in order by one loop. */
  async function keepBooks(): Promise<void> {
    const owed = m.books;
    for (;;) {
      await condition(() => booksOwed(owed));
      owed.writing = true;
      try {
        while (owed.undelivered.length > 0) {
          const batch = owed.undelivered.shift()!;
          await books.recordUndelivered(endpointId, batch.items, batch.reason, batch.at);
        }
        while (owed.overlapsEnded.length > 0) await books.endSecretOverlap(endpointId, owed.overlapsEnded.shift()!);
        if (owed.mirrorWanted) {
          owed.mirrorWanted = false;
          await books.mirrorWebhookEndpoint(endpointId, mirrorOf(m, Date.now()));
        }
      } finally {
        owed.writing = false;
        wakeups++;
      }
    }
  }

  /** One page of the events a recovery sends, read as the queue drains. */
  async function readPage(r: RecoveryState): Promise<void> {
    try {
      const page = await books.missedWebhookEvents({ endpointId, since: r.since, until: r.until, after: r.after, limit: RECOVERY_PAGE });
      takePage(m, r, page, Date.now());
    } finally {
      m.fetching = false;
      wakeups++;
    }
  }

  const attemptOf = (d: PendingDelivery) => ({ event: d.event, attempt: d.attempts, ...(d.trigger ? { trigger: d.trigger } : {}) });

  /** The attempts of a batch, as one activity. */
  async function attemptBatch(b: Batch): Promise<void> {
    let results: TimedOutcome[] = []; // none: the activity failed, nothing counts
    try {
      results = await deliverWebhooks({ endpointId, attempts: b.deliveries.map(attemptOf) });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
    } finally {
      wakeups++;
    }
    const disabled = endBatch(m, b, results, Date.now());
    if (disabled) log.info('webhook endpoint disabled', { endpointId, ...disabled });
  }

  /** One attempt of a delivery already marked in flight (a run begun before batches). */
  async function attempt(d: PendingDelivery): Promise<void> {
    let result: Outcome;
    try {
      result = await deliverWebhook({ endpointId, ...attemptOf(d) });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      result = { outcome: 'not_attempted' };
    } finally {
      m.inFlight.delete(d.event.id);
      wakeups++;
    }
    const disabled = settleAttempt(m, d, result, Date.now());
    if (disabled) log.info('webhook endpoint disabled', { endpointId, ...disabled });
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

  // A run begun since deliveries ran concurrently also hands over when it is MAX_RUN_MS old: what it
  // was handed (claim-checked when large: thousands of event ids after a burst) must still be
  // stored when a replay of it reads it.
  const retireAt = concurrent ? Date.now() + MAX_RUN_MS : undefined;

  void keepBooks();

  for (;;) {
    const now = Date.now();
    if (inbox.removed) return;
    applyArrivals(m, now);

    const info = workflowInfo();
    const handOver =
      info.continueAsNewSuggested ||
      info.historyLength >= (input.historyLimit ?? DEFAULT_HISTORY_LIMIT) ||
      (retireAt !== undefined && now >= retireAt);
    const work = startWork(m, now, handOver);
    if (work.page) void readPage(work.page);
    if (!batched) for (const d of work.attempts) void attempt(d);
    else if (work.attempts.length > 0) void attemptBatch(beginBatch(m, work.attempts, now));
    if (handOver && isQuiet(m)) {
      await condition(allHandlersFinished);
      // A signal may have arrived while we waited: apply it first, never carry it off unread.
      if (isQuiet(m)) return continueAsNew<typeof webhookEndpoint>({ ...input, carried: carry(m, Date.now()), previousRuns: run });
      continue;
    }

    const wake = nextWakeAt(m, handOver);
    if (wake !== undefined) wakeAt(wake, now);
    if (retireAt !== undefined && !handOver) wakeAt(retireAt, now);
    const seen = wakeups;
    await condition(() => wakeups !== seen || inbox.removed);
  }
}
