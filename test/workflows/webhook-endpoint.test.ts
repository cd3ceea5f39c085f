//! The webhook endpoint workflow on the time-skipping test server: the whole retry schedule,
//! the disable at exactly 20, the reset on success, continue-as-new with pending deliveries,
//! nothing posted after a disable; with attempts in flight at once, the count in the order they
//! end and the disable at the 20th failure in a row (a burst of 10,000: test/disruptive/webhook-endpoint-burst.test.ts).
//! Bookkeeping runs for real on the database; the delivery activity is a
//! stand-in that records each attempt at its scheduled (skipped) time and answers as the test's
//! script says, at once or when the test lets it (the HTTP side is tested for real in test/webhooks/).
import test from 'ava';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { Context } from '@temporalio/activity';
import { randomBytes } from 'node:crypto';
import { collections, type Mongo } from '../../lib/mongo.js';
import { startWorkflowTestBed, serviceWorkflowBundle, type WorkflowTestBed } from '../helpers/workflow-test-bed.js';
import { newId } from '../../lib/ids.js';
import { TASK_QUEUES, WEBHOOK_DELIVERY_QUEUE } from '../../lib/temporal-shared.js';
import { createWebhookEndpoints, type WebhookEndpoints } from '../../domain/webhooks/endpoints.js';
import {
  WEBHOOK_SIGNALS,
  WEBHOOK_STATE_QUERY,
  webhookWorkflowId,
  type WebhookEndpointInput,
  type WebhookEndpointState,
  type WebhookEnvelope,
} from '../../lib/webhook-messages.js';
import {
  createWebhookActivities,
  type DeliverBatchRequest,
  type DeliverRequest,
  type DeliverResult,
  type TimedDeliverResult,
} from '../../activities/core/webhooks.js';
import { attemptOffsets, DISABLE_AFTER_FAILURES } from '../../lib/webhook-policy.js';

let env: TestWorkflowEnvironment;
let mongo: Mongo;
let store: WebhookEndpoints;
let bed: WorkflowTestBed | undefined;

interface Attempt {
  endpointId: string;
  eventId: string;
  attempt: number;
  /** Scheduled time on the test server's (skipped) clock, ms. */
  at: number;
  success: boolean;
}
/** Attempts that ended, in the order they ended. */
const attempts: Attempt[] = [];
/** Attempts started, per endpoint. */
const started = new Map<string, number>();
/** An attempt the test holds in flight until it says how it ends. */
interface Held {
  endpointId: string;
  eventId: string;
  attempt: number;
  end(success: boolean): void;
}
const held: Held[] = [];
/** Per endpoint: does its n-th attempt (1-based, over all its events, in the order they start) succeed, or is it held? */
type Script = (n: number, eventId: string) => boolean | 'hold';
const scripts = new Map<string, Script>();

async function deliverWebhook(req: DeliverRequest): Promise<DeliverResult> {
  const n = (started.get(req.endpointId) ?? 0) + 1;
  started.set(req.endpointId, n);
  const at = Context.current().info.currentAttemptScheduledTimestampMs;
  const scripted = scripts.get(req.endpointId)?.(n, req.event.id) ?? true;
  const success =
    scripted === 'hold'
      ? await new Promise<boolean>((end) => held.push({ endpointId: req.endpointId, eventId: req.event.id, attempt: req.attempt, end }))
      : scripted;
  attempts.push({ endpointId: req.endpointId, eventId: req.event.id, attempt: req.attempt, at, success });
  return success
    ? { outcome: 'delivered', statusCode: 204, durationMs: 1 }
    : { outcome: 'failed', statusCode: 500, durationMs: 1, error: 'The receiver answered HTTP 500.' };
}

/** When the last attempt ended, on the test server's clock: each ends strictly after the one before. */
let lastEndedAt = 0;

/**
 * The attempts of a batch, each as `deliverWebhook` does it, with when it ended: on the test
 * server's (skipped) clock, as the workflow reads time, and in the order the attempts ended.
 */
async function deliverWebhooks(req: DeliverBatchRequest): Promise<TimedDeliverResult[]> {
  const scheduledAt = Context.current().info.currentAttemptScheduledTimestampMs;
  const began = performance.now();
  return Promise.all(
    req.attempts.map(async (a) => {
      const result = await deliverWebhook({ endpointId: req.endpointId, ...a });
      lastEndedAt = Math.max(scheduledAt + (performance.now() - began), lastEndedAt + 0.001);
      return { ...result, endedAt: lastEndedAt };
    }),
  );
}

test.before(async () => {
  const secretKey = randomBytes(32);
  bed = await startWorkflowTestBed('webhook_workflow_tests', async (env, mongo) => {
    store = createWebhookEndpoints(mongo.db, secretKey);
    // The worker's setting left at its default (WEBHOOK_ENDPOINT_CONCURRENCY unset).
    const real = createWebhookActivities({ db: mongo.db, secretKey, post: async () => ({ statusCode: 204 }) });
    return [
      await Worker.create({
        connection: env.nativeConnection,
        taskQueue: TASK_QUEUES.core,
        workflowBundle: await serviceWorkflowBundle(),
        activities: real,
      }),
      await Worker.create({
        connection: env.nativeConnection,
        taskQueue: WEBHOOK_DELIVERY_QUEUE,
        activities: { deliverWebhook, deliverWebhooks },
      }),
    ];
  });
  ({ env, mongo } = bed);
});

test.after.always(() => bed?.close());

async function newEndpoint(script: Script): Promise<string> {
  const { doc } = await store.create(newId('acc'), 'https://hooks.example.com/in');
  scripts.set(doc._id, script);
  return doc._id;
}

function envelope(id = newId('evt')): WebhookEnvelope {
  return { id, event: 'credits.low', createdAt: '2026-01-01T00:00:00.000+00:00', data: { balance: 24, threshold: 25, message: 'low' } };
}

async function send(endpointId: string, event = envelope(), input: Partial<WebhookEndpointInput> = {}): Promise<WebhookEnvelope> {
  await env.client.workflow.signalWithStart('webhookEndpoint', {
    workflowId: webhookWorkflowId(endpointId),
    taskQueue: TASK_QUEUES.core,
    args: [{ endpointId, ...input }],
    signal: WEBHOOK_SIGNALS.event,
    signalArgs: [event],
  });
  return event;
}

const stateOf = (endpointId: string) =>
  env.client.workflow.getHandle(webhookWorkflowId(endpointId)).query<WebhookEndpointState>(WEBHOOK_STATE_QUERY);
const attemptsOf = (endpointId: string, eventId?: string) =>
  attempts.filter((a) => a.endpointId === endpointId && (!eventId || a.eventId === eventId));
const SECOND = 1000;
const HOUR = 3600 * SECOND;

/**
 * Each attempt comes its delay after the one before: never early, and late by at most the real
 * time one attempt takes on the test machine (3 s here). Judged gap by gap, so that a loaded
 * machine's real time does not add up over forty attempts into a verdict about the schedule.
 */
function assertOffsets(t: import('ava').ExecutionContext, at: number[], expected: number[]) {
  t.is(at.length, expected.length, `attempt count: ${at.length}`);
  for (let i = 1; i < expected.length; i++) {
    const gap = at[i]! - at[i - 1]!;
    const wanted = expected[i]! - expected[i - 1]!;
    t.true(gap >= wanted - 100 && gap < wanted + 3 * SECOND, `attempt ${i + 1} came ${gap} ms after attempt ${i}, expected ${wanted} ms`);
  }
}

test.serial(
  'a delivery that keeps failing follows 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then 2 h, and the 20th failure disables the endpoint',
  async (t) => {
    const endpointId = await newEndpoint(() => false);
    const event = await send(endpointId);
    await env.sleep(2 * 24 * HOUR);

    const made = attemptsOf(endpointId);
    assertOffsets(
      t,
      made.map((a) => a.at),
      attemptOffsets().slice(0, DISABLE_AFTER_FAILURES),
    );
    t.deepEqual(
      attemptOffsets().slice(0, 8),
      [0, 5, 35, 155, 755, 2555, 6155, 13355].map((s) => s * SECOND),
    );
    t.deepEqual(
      made.map((a) => a.attempt),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );

    t.like(await stateOf(endpointId), { disabled: true, consecutiveFailures: 20, pending: 0, inFlight: 0 });
    const doc = await store.byId(endpointId);
    t.is(doc?.status, 'disabled');
    t.is(doc?.consecutiveFailures, 20);
    t.truthy(doc?.disabledAt);
    t.regex(doc?.disabledReason ?? '', /20 consecutive failed deliveries/);
    const undelivered = await collections(mongo.db).webhookUndelivered.findOne({ _id: `${endpointId}:${event.id}` });
    t.like(undelivered, { reason: 'endpoint_disabled', attempts: 20 });
  },
);

test.serial('nothing is posted to a disabled endpoint until it is re-enabled; then deliveries resume with the count at 0', async (t) => {
  let healthy = false;
  const endpointId = await newEndpoint(() => healthy);
  await send(endpointId);
  await env.sleep(2 * 24 * HOUR);
  t.is(attemptsOf(endpointId).length, 20);

  const whileDisabled = await send(endpointId);
  await env.sleep(24 * HOUR);
  t.is(attemptsOf(endpointId).length, 20, 'no attempt after the disable');
  t.like(await collections(mongo.db).webhookUndelivered.findOne({ _id: `${endpointId}:${whileDisabled.id}` }), {
    reason: 'endpoint_disabled',
    attempts: 0,
  });

  healthy = true;
  await env.client.workflow.getHandle(webhookWorkflowId(endpointId)).signal(WEBHOOK_SIGNALS.enable);
  const afterEnable = await send(endpointId);
  await env.sleep(10 * SECOND);
  t.deepEqual(
    attemptsOf(endpointId, afterEnable.id).map((a) => a.success),
    [true],
  );
  t.like(await stateOf(endpointId), { disabled: false, consecutiveFailures: 0, pending: 0 });
  t.like(await store.byId(endpointId), { status: 'active', consecutiveFailures: 0, disabledAt: null });
});

test.serial('any success resets the count: 38 failures with one success between them do not disable', async (t) => {
  // Attempts 1-19 fail, 20 succeeds, 21-39 fail, 40 succeeds.
  const endpointId = await newEndpoint((n) => n === 20 || n >= 40);
  const first = await send(endpointId);
  await env.sleep(30 * HOUR);
  t.like(await stateOf(endpointId), { disabled: false, consecutiveFailures: 0, pending: 0 });
  t.is(attemptsOf(endpointId, first.id).length, 20);

  const second = await send(endpointId);
  // Its 19th attempt runs at +25.7 h, its 20th at +27.7 h.
  await env.sleep(26.5 * HOUR);
  t.like(await stateOf(endpointId), { disabled: false, consecutiveFailures: 19, pending: 1 });
  t.is((await store.byId(endpointId))?.consecutiveFailures, 19, 'the database mirrors the count');
  await env.sleep(3 * HOUR);
  t.like(await stateOf(endpointId), { disabled: false, consecutiveFailures: 0, pending: 0 });
  t.is(attemptsOf(endpointId, second.id).length, 20);
  t.like(await store.byId(endpointId), { status: 'active', consecutiveFailures: 0 });
});

test.serial('a delivery that never succeeds while others do runs the whole 3-day schedule, then ends undelivered as expired', async (t) => {
  const stubborn = envelope();
  const endpointId = await newEndpoint((_, eventId) => eventId !== stubborn.id);
  await send(endpointId, stubborn);
  // Another event every 12 h succeeds and resets the count, so the endpoint stays active.
  for (let i = 0; i < 7; i++) {
    await env.sleep(12 * HOUR);
    await send(endpointId);
  }
  await env.sleep(12 * HOUR);

  const schedule = attemptOffsets();
  t.is(schedule.length, 42);
  t.is(schedule.at(-1), 258_155 * SECOND, 'the last attempt is the last 2-hourly one within 3 days');
  assertOffsets(
    t,
    attemptsOf(endpointId, stubborn.id).map((a) => a.at),
    schedule,
  );
  t.like(await collections(mongo.db).webhookUndelivered.findOne({ _id: `${endpointId}:${stubborn.id}` }), {
    reason: 'expired',
    attempts: 42,
  });
  t.like(await stateOf(endpointId), { disabled: false, pending: 0 });
});

test.serial('continue-as-new carries the failure count: the 20th failure disables across several runs', async (t) => {
  const endpointId = await newEndpoint(() => false);
  await send(endpointId, envelope(), { historyLimit: 40 });
  await env.sleep(2 * 24 * HOUR);
  t.is(attemptsOf(endpointId).length, 20);
  const state = await stateOf(endpointId);
  t.like(state, { disabled: true, consecutiveFailures: 20 });
  t.true(state.run >= 3, `runs: ${state.run}`);
});

test.serial('continue-as-new carries pending deliveries: each event is delivered exactly once', async (t) => {
  // Every event fails its first three attempts.
  const endpointId = await newEndpoint((_, eventId) => attempts.filter((a) => a.eventId === eventId).length >= 3);
  const events = [];
  for (let i = 0; i < 5; i++) events.push(await send(endpointId, envelope(), { historyLimit: 40 }));
  await env.sleep(6 * HOUR);
  for (const e of events) {
    t.deepEqual(
      attemptsOf(endpointId, e.id).map((a) => a.success),
      [false, false, false, true],
      e.id,
    );
  }
  const state = await stateOf(endpointId);
  t.like(state, { disabled: false, consecutiveFailures: 0, pending: 0 });
  t.true(state.run >= 2, `runs: ${state.run}`);
});

test.serial('an event sent twice (a fan-out re-send) is delivered once', async (t) => {
  const endpointId = await newEndpoint(() => true);
  const event = envelope();
  await send(endpointId, event);
  await env.sleep(10 * SECOND);
  await send(endpointId, event);
  await env.sleep(10 * SECOND);
  t.is(attemptsOf(endpointId, event.id).length, 1);
});

test.serial('events that reach the fan-out together come in one signal: each is delivered once, a repeat among them too', async (t) => {
  const endpointId = await newEndpoint(() => true);
  const [a, b] = [envelope(), envelope()];
  await env.client.workflow.signalWithStart('webhookEndpoint', {
    workflowId: webhookWorkflowId(endpointId),
    taskQueue: TASK_QUEUES.core,
    args: [{ endpointId }],
    signal: WEBHOOK_SIGNALS.events,
    signalArgs: [[a, b, a]],
  });
  await env.sleep(10 * SECOND);
  t.deepEqual(
    attemptsOf(endpointId)
      .map((x) => x.eventId)
      .sort(),
    [a.id, b.id].sort(),
  );
});

test.serial('deleting the endpoint ends its workflow', async (t) => {
  const endpointId = await newEndpoint(() => false);
  await send(endpointId);
  await env.sleep(10 * SECOND);
  const handle = env.client.workflow.getHandle(webhookWorkflowId(endpointId));
  await handle.signal(WEBHOOK_SIGNALS.remove);
  await handle.result();
  const made = attemptsOf(endpointId).length;
  await env.sleep(24 * HOUR);
  t.is(attemptsOf(endpointId).length, made);
});

/** Polls `read` until `done` holds; bounded only against a hang (the server's time is not skipped meanwhile). */
async function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 120_000): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > giveUpAt) throw new Error(`${what}: not within ${timeoutMs} ms; last ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const heldOf = (endpointId: string) => held.filter((h) => h.endpointId === endpointId);

/**
 * Ends a held attempt and waits until it is on record as ended. (Its outcome is counted once its
 * batch is back and no batch started before it ended is still out: not at once.)
 */
async function endHeld(h: Held, success: boolean): Promise<void> {
  held.splice(held.indexOf(h), 1);
  h.end(success);
  await until(
    () => attempts.some((a) => a.eventId === h.eventId && a.attempt === h.attempt),
    (done) => done,
    `${h.eventId} ended`,
  );
}

/** Lets every attempt still held succeed, and deletes the endpoint's workflow. */
async function release(endpointId: string) {
  scripts.set(endpointId, () => true);
  for (const h of heldOf(endpointId)) {
    held.splice(held.indexOf(h), 1);
    h.end(true);
  }
  await env.client.workflow.getHandle(webhookWorkflowId(endpointId)).signal(WEBHOOK_SIGNALS.remove);
}

test.serial(
  'attempts in flight at once are counted in the order they end: a success ending fourth resets the three failures before it, not the four after',
  async (t) => {
    // Eight events in eight signals: their attempts go out in batches as the workflow takes them in.
    const endpointId = await newEndpoint(() => 'hold');
    const events = [];
    for (let i = 0; i < 8; i++) events.push(await send(endpointId, envelope(), { concurrency: 8 }));
    const inFlight = await until(
      () => heldOf(endpointId),
      (h) => h.length === 8,
      'eight attempts in flight',
    );
    t.like(await stateOf(endpointId), { inFlight: 8, concurrency: 8, consecutiveFailures: 0 });
    // The attempt that started first ends fourth, and is the only success.
    const [first, ...others] = inFlight;
    const order: Array<[Held, boolean]> = [
      [others[0]!, false],
      [others[1]!, false],
      [others[2]!, false],
      [first!, true],
      [others[3]!, false],
      [others[4]!, false],
      [others[5]!, false],
      [others[6]!, false],
    ];
    for (const [h, success] of order) await endHeld(h, success);
    // Counted by when each ended: 4. By when each started, or the success last to come back: 7.
    t.like(
      await until(
        () => stateOf(endpointId),
        (s) => s.inFlight === 0 && s.consecutiveFailures !== 0,
        'all eight counted',
      ),
      { consecutiveFailures: 4, disabled: false },
    );
    t.is(
      (
        await until(
          () => store.byId(endpointId),
          (d) => d?.consecutiveFailures === 4,
          'the mirror',
        )
      )?.status,
      'active',
    );
    await release(endpointId);
  },
);

test.serial(
  'with attempts in flight at once, the 20th failure in a row after the last success disables: nothing else is in flight then, and nothing is posted after',
  async (t) => {
    const endpointId = await newEndpoint(() => 'hold');
    for (let i = 0; i < 30; i++) await send(endpointId, envelope(), { concurrency: 8 });
    await until(
      () => heldOf(endpointId),
      (h) => h.length === 8,
      'eight attempts in flight',
    );
    let count = 0;
    let mostInFlight = 0;
    let succeeded: string | undefined;
    for (let ended = 0; ; ended++) {
      const [oldest, ...rest] = await until(
        () => heldOf(endpointId),
        (h) => h.length > 0,
        'an attempt in flight',
      );
      // The sixth attempt to end is the one success, while attempts begun before it are still running.
      const success = ended === 5;
      if (success) {
        t.true(rest.length > 0, 'attempts in flight besides the success');
        succeeded = oldest!.eventId;
      }
      count = success ? 0 : count + 1;
      mostInFlight = Math.max(mostInFlight, rest.length + 1);
      await endHeld(oldest!, success);
      const { state } = await until(
        async () => ({ state: await stateOf(endpointId), holding: heldOf(endpointId).length }),
        (v) => v.state.disabled || v.holding > 0,
        'the disable, or another attempt in flight',
      );
      t.true(state.inFlight <= 8, `in flight ${state.inFlight}`);
      if (state.disabled) break;
    }
    t.is(count, DISABLE_AFTER_FAILURES);
    t.is(mostInFlight, 8, 'eight at once');
    const ended = attemptsOf(endpointId);
    t.is(ended.length, 5 + 1 + DISABLE_AFTER_FAILURES);
    t.deepEqual(
      ended.map((a) => a.success).slice(-DISABLE_AFTER_FAILURES - 1),
      [true, ...Array(DISABLE_AFTER_FAILURES).fill(false)],
      'in the order they ended',
    );
    t.is(started.get(endpointId), ended.length, 'every attempt started has ended and was counted');
    t.deepEqual(heldOf(endpointId), []);
    t.like(await stateOf(endpointId), { disabled: true, consecutiveFailures: 20, pending: 0, inFlight: 0 });
    t.like(
      await until(
        () => store.byId(endpointId),
        (d) => d?.status === 'disabled',
        'the mirror',
      ),
      { consecutiveFailures: 20 },
    );
    const undelivered = await collections(mongo.db).webhookUndelivered.find({ endpointId }).toArray();
    t.is(undelivered.length, 29, 'every delivery but the one that succeeded ended');
    t.true(undelivered.every((u) => u.reason === 'endpoint_disabled' && u.eventId !== succeeded));

    await env.sleep(24 * HOUR);
    t.is(started.get(endpointId), ended.length, 'nothing posted after the disable');
    await release(endpointId);
  },
);
