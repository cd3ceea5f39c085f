//! The webhook endpoint workflow on the time-skipping test server: the whole retry schedule,
//! the disable at exactly 20, the reset on success, continue-as-new with pending deliveries,
//! nothing posted after a disable (attempts in flight at once: webhook-endpoint-concurrent.test.ts).
//! Bookkeeping runs for real on the database; the delivery activity is a stand-in that records
//! each attempt at its scheduled (skipped) time and answers as the test's script says
//! (support/webhook-endpoint-bed.ts; the HTTP side is tested for real in test/webhooks/).
import test from 'ava';
import { collections } from '../../lib/mongo.js';
import { TASK_QUEUES } from '../../contracts/temporal-names.js';
import { WEBHOOK_SIGNALS, webhookWorkflowId } from '../../contracts/webhook-messages.js';
import { attemptOffsets, DISABLE_AFTER_FAILURES } from '../../contracts/webhook-policy.js';

import {
  attempts,
  attemptsOf,
  assertOffsets,
  env,
  envelope,
  HOUR,
  mongo,
  newEndpoint,
  SECOND,
  send,
  stateOf,
  store,
  useWebhookEndpointBed,
} from './support/webhook-endpoint-bed.js';

useWebhookEndpointBed();

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
