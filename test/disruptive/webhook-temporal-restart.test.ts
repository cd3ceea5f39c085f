//! Webhook deliveries survive a Temporal restart: deliveries waiting for their retry (the
//! receiver failing) are delivered once it recovers, and an event recorded while Temporal is
//! down is delivered too. Nothing lost, each delivered once. Runs in a step of its own (ava.disruptive.config.mjs).
import test from 'ava';
import { newAccount, request } from '../helpers/api.js';
import {
  attemptsOf,
  endpointOf,
  eventually,
  registerEndpoint,
  sendTest,
  sleep,
  startReceiver,
  type Receiver,
} from '../helpers/webhook-receiver.js';
import { withServiceDb } from '../helpers/db.js';
import { testEnv } from '../helpers/env.js';
import { withTemporalClient } from '../helpers/temporal.js';
import { stackControl } from './support/stack-control.js';
import { WEBHOOK_STATE_QUERY, webhookWorkflowId, type WebhookEndpointState } from '../../contracts/webhook-messages.js';
import { verifyWebhook } from '../../lib/webhook-signature.js';

let receiver: Receiver;
test.before(async () => {
  receiver = await startReceiver();
});
test.after.always(async () => {
  await receiver?.close();
});

/** The endpoint workflow's run id and state. */
async function workflowState(endpointId: string): Promise<{ runId: string; state: WebhookEndpointState }> {
  return withTemporalClient(async (client) => {
    const handle = client.workflow.getHandle(webhookWorkflowId(endpointId));
    return { runId: (await handle.describe()).runId, state: await handle.query<WebhookEndpointState>(WEBHOOK_STATE_QUERY) };
  });
}

test('deliveries pending across a Temporal restart are delivered once the receiver recovers; nothing is lost or delivered twice', async (t) => {
  const account = await newAccount(10);
  const endpoint = await registerEndpoint(account, receiver.url('/restart'));
  let failing = true;
  receiver.behave('/restart', () => ({ status: failing ? 500 : 200 }));

  // Three deliveries fail their first attempt and wait for the 5 s retry on durable timers.
  const pending = [await sendTest(account, endpoint.id), await sendTest(account, endpoint.id), await sendTest(account, endpoint.id)];
  await receiver.waitFor((all) => pending.every((id) => all.some((d) => d.body?.id === id)), 30_000, 'the first attempts');
  const before = await workflowState(endpoint.id);
  t.like(before.state, { pending: 3, disabled: false });

  // Stop Temporal; while it is down, an account event is recorded (the API call itself needs no
  // Temporal), so its fan-out has to be re-sent once Temporal is back. Stopped, not restarting:
  // the event is recorded while it is down however fast this machine restarts it.
  const control = stackControl(testEnv.stackControlUrl());
  await control.run('stop/temporal');
  const key = await request('POST', '/api/v1/account/keys', { token: account.ownerToken, body: { name: 'during restart' } }).finally(() =>
    control.run('start/temporal'),
  );
  t.is(key.status, 201);
  failing = false;
  const after = await workflowState(endpoint.id);
  t.is(after.runId, before.runId, 'the same workflow run carries on');

  const createdDuring = (all: ReturnType<Receiver['deliveries']>) =>
    all.some((d) => d.body?.event === 'api_key.created' && d.body.data.keyId === key.body.id && d.answered === 200);
  const all = await receiver.waitFor(
    (got) => pending.every((id) => got.some((d) => d.body?.id === id && d.answered === 200)) && createdDuring(got),
    180_000,
    'every delivery after the restart',
  );
  await sleep(3000); // room for a duplicate to show up, if there were one

  const delivered = receiver.deliveries('/restart').filter((d) => d.answered === 200);
  const ids = delivered.map((d) => d.body.id);
  t.is(new Set(ids).size, ids.length, `each event delivered once: ${ids.join(', ')}`);
  t.is(ids.length, 4, 'three pending test events and the key created during the restart');
  for (const d of delivered) t.true(verifyWebhook(endpoint.secret, d.headers, d.rawBody, d.receivedAt), `${d.body.event} verifies`);
  t.true(all.length >= 7, 'each pending event had a failed attempt before its delivery');

  const attempts = await attemptsOf(account, endpoint.id, 200);
  for (const id of pending) {
    const mine = attempts.filter((a) => a.eventId === id);
    t.true(mine.length >= 2, `${id}: a failure, then the delivery`);
    t.is(mine.filter((a) => a.success).length, 1, `${id}: delivered once`);
    t.is(mine.at(-1).statusCode, 500);
  }
  t.is(
    await withServiceDb((db) => db.collection('webhook_undelivered').countDocuments({ endpointId: endpoint.id })),
    0,
    'nothing ended undelivered',
  );
  t.like(
    await eventually(
      () => endpointOf(account, endpoint.id),
      (e) => e.consecutiveFailures === 0,
      10_000,
      'count reset',
    ),
    { status: 'active' },
  );
});
