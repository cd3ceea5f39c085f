//! The webhook endpoint workflow with attempts in flight at once: the failure count in the order the
//! attempts end and the disable at the 20th failure in a row (a burst of 10,000:
//! test/disruptive/webhook-endpoint-burst.test.ts). The bed: test/workflows/support/webhook-endpoint-bed.ts.
import test from 'ava';
import { collections } from '../../lib/mongo.js';
import { DISABLE_AFTER_FAILURES } from '../../contracts/webhook-policy.js';

import {
  attemptsOf,
  endHeld,
  env,
  envelope,
  HOUR,
  type Held,
  heldOf,
  mongo,
  newEndpoint,
  release,
  send,
  started,
  stateOf,
  store,
  until,
  useWebhookEndpointBed,
} from './support/webhook-endpoint-bed.js';

useWebhookEndpointBed();

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
