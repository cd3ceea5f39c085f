//! The owner's requests on the webhook endpoint workflow, on the time-skipping test server with
//! the real delivery activity (signing, the attempt log) and a poster that records what a
//! receiver would get: a rotated secret's 24 h overlap (both signatures inside it, only the new
//! one after, across continue-as-new), a replay (a new attempt of a past event), and a recovery
//! (every missed event, once, in the order it happened, page after page).
import test from 'ava';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { Context } from '@temporalio/activity';
import { randomBytes } from 'node:crypto';
import { collections, type Mongo } from '../../lib/mongo.js';
import { startWorkflowTestBed, serviceWorkflowBundle, type WorkflowTestBed } from '../helpers/workflow-test-bed.js';
import { newId } from '../../lib/ids.js';
import { SERVICE_ACTOR } from '../../domain/audit/index.js';
import { createEventRecorder, newEvent, type DomainEvent } from '../../domain/events/record.js';
import { TASK_QUEUES, WEBHOOK_DELIVERY_QUEUE } from '../../contracts/temporal-names.js';
import { createWebhookEndpoints, type WebhookEndpoints } from '../../domain/webhooks/endpoints.js';
import { signalEndpoint } from '../../domain/webhooks/fanout.js';
import {
  WEBHOOK_SIGNALS,
  WEBHOOK_STATE_QUERY,
  toEnvelope,
  webhookWorkflowId,
  type WebhookEndpointState,
  type WebhookEnvelope,
} from '../../contracts/webhook-messages.js';
import { createWebhookActivities } from '../../activities/core/webhooks.js';
import { computeSignature, verifyWebhook } from '../../lib/webhook-signature.js';
import { SECRET_OVERLAP_MS } from '../../contracts/webhook-policy.js';
import type { WebhookRequest } from '../../domain/webhooks/index.js';

let env: TestWorkflowEnvironment;
let mongo: Mongo;
let store: WebhookEndpoints;
let bed: WorkflowTestBed | undefined;

interface Posted extends WebhookRequest {
  /** Scheduled time of the attempt on the test server's (skipped) clock, ms. */
  at: number;
  /** Real time it was posted, for the signature's 300 s window. */
  postedAt: number;
}
const posted: Posted[] = [];
/** URL -> how it answers. */
const answers = new Map<string, () => number>();

test.before(async () => {
  const secretKey = randomBytes(32);
  bed = await startWorkflowTestBed('webhook_request_tests', async (env, mongo) => {
    store = createWebhookEndpoints(mongo.db, secretKey);
    const activities = createWebhookActivities({
      db: mongo.db,
      secretKey,
      post: async (req) => {
        posted.push({ ...req, at: Context.current().info.currentAttemptScheduledTimestampMs, postedAt: Date.now() });
        return { statusCode: answers.get(req.url)?.() ?? 204 };
      },
    });
    return [
      await Worker.create({
        connection: env.nativeConnection,
        taskQueue: TASK_QUEUES.core,
        workflowBundle: await serviceWorkflowBundle(),
        activities,
      }),
      await Worker.create({
        connection: env.nativeConnection,
        taskQueue: WEBHOOK_DELIVERY_QUEUE,
        activities: { deliverWebhook: activities.deliverWebhook, deliverWebhooks: activities.deliverWebhooks },
      }),
    ];
  });
  ({ env, mongo } = bed);
});

test.after.always(() => bed?.close());

const SECOND = 1000;
const HOUR = 3600 * SECOND;

async function newEndpoint(accountId = newId('acc')) {
  const url = `https://hooks.example.com/${newId('in')}`;
  const { doc, secret } = await store.create(accountId, url);
  // Registered two hours ago: the events the recovery tests record after it are all in the past.
  await collections(mongo.db).webhookEndpoints.updateOne({ _id: doc._id }, { $set: { createdAt: new Date(Date.now() - 2 * HOUR) } });
  return { id: doc._id, accountId, url, secret };
}

const envelope = (id = newId('evt')): WebhookEnvelope => ({
  id,
  event: 'credits.low',
  createdAt: '2026-01-01T00:00:00.000+00:00',
  data: { balance: 24, threshold: 25, message: 'low' },
});
const tell = (endpointId: string, signal: string, args: unknown[] = []) => signalEndpoint(env.client, endpointId, signal, args);
const postedTo = (url: string) => posted.filter((p) => p.url === url);
const bodyOf = (p: Posted) => JSON.parse(p.body) as WebhookEnvelope;
const stateOf = (endpointId: string) =>
  env.client.workflow.getHandle(webhookWorkflowId(endpointId)).query<WebhookEndpointState>(WEBHOOK_STATE_QUERY);

/** Does a receiver holding `secret` accept this delivery (the package's check, and the single `X-Service-Signature` alone)? */
function receiverWith(secret: string, p: Posted) {
  const timestamp = p.headers['X-Service-Timestamp']!;
  return {
    verifies: verifyWebhook(secret, p.headers, p.body, p.postedAt),
    specHeader: p.headers['X-Service-Signature'] === computeSignature(secret, timestamp, p.body),
  };
}

/** What the rotate route does: tell the workflow, then store the new secret. */
async function rotate(endpointId: string): Promise<string> {
  const rotationId = newId('rot');
  await tell(endpointId, WEBHOOK_SIGNALS.rotate, [{ rotationId, overlapMs: SECRET_OVERLAP_MS }]);
  const rotated = await store.rotate((await store.byId(endpointId))!, rotationId, new Date(Date.now() + SECRET_OVERLAP_MS), SERVICE_ACTOR);
  return rotated!.secret;
}

test.serial('a rotated secret: both secrets verify every delivery for 24 h, across continue-as-new; then only the new one', async (t) => {
  const { id, url, secret: oldSecret } = await newEndpoint();
  // A low history limit, so the overlap has to be carried from run to run.
  await env.client.workflow.signalWithStart('webhookEndpoint', {
    workflowId: webhookWorkflowId(id),
    taskQueue: TASK_QUEUES.core,
    args: [{ endpointId: id, historyLimit: 30 }],
    signal: WEBHOOK_SIGNALS.event,
    signalArgs: [envelope()],
  });
  await env.sleep(10 * SECOND);
  const before = postedTo(url).at(-1)!;
  t.deepEqual(receiverWith(oldSecret, before), { verifies: true, specHeader: true });
  t.is(before.headers['X-Service-Signatures'], before.headers['X-Service-Signature'], 'one secret: one signature');

  const newSecret = await rotate(id);
  t.not(newSecret, oldSecret);
  const inWindow: Posted[] = [];
  // An event every 2 h for 23 h: each delivery inside the window.
  for (let h = 0; h < 12; h++) {
    await tell(id, WEBHOOK_SIGNALS.event, [envelope()]);
    await env.sleep(10 * SECOND);
    inWindow.push(postedTo(url).at(-1)!);
    if (h < 11) await env.sleep(2 * HOUR - 10 * SECOND);
  }
  t.true(inWindow.at(-1)!.at - inWindow[0]!.at > 21 * HOUR, 'the deliveries span the window');
  for (const p of inWindow) {
    t.deepEqual(
      receiverWith(oldSecret, p),
      { verifies: true, specHeader: true },
      'a receiver on the old secret, even one reading only X-Service-Signature',
    );
    t.true(receiverWith(newSecret, p).verifies, 'a receiver on the new secret (X-Service-Signatures)');
    t.regex(p.headers['X-Service-Signatures']!, /^sha256=[0-9a-f]{64}, sha256=[0-9a-f]{64}$/);
  }
  const during = await stateOf(id);
  t.true(during.run >= 2, `the overlap was carried across runs (run ${during.run})`);
  t.truthy(during.overlapUntil);
  t.truthy((await store.byId(id))?.previousSecretSealed);

  await env.sleep(2 * HOUR); // past 24 h since the rotation
  t.is((await store.byId(id))?.previousSecretSealed, null, 'the workflow ended the overlap');
  t.is((await store.byId(id))?.rotation, null);
  t.is((await stateOf(id)).overlapUntil, undefined);
  await tell(id, WEBHOOK_SIGNALS.event, [envelope()]);
  await env.sleep(10 * SECOND);
  const after = postedTo(url).at(-1)!;
  t.true(after.at - inWindow[0]!.at > SECRET_OVERLAP_MS - 10 * SECOND);
  t.deepEqual(receiverWith(newSecret, after), { verifies: true, specHeader: true });
  t.deepEqual(receiverWith(oldSecret, after), { verifies: false, specHeader: false });
  t.is(after.headers['X-Service-Signatures'], after.headers['X-Service-Signature']);
});

test.serial('an overlap ended early by the owner stays ended; a later rotation gets its own full window', async (t) => {
  const { id, url, secret: first } = await newEndpoint();
  const second = await rotate(id);
  await store.endOverlapNow((await store.byId(id))!.accountId, id, SERVICE_ACTOR);
  await tell(id, WEBHOOK_SIGNALS.event, [envelope()]);
  await env.sleep(10 * SECOND);
  t.deepEqual(receiverWith(first, postedTo(url).at(-1)!), { verifies: false, specHeader: false });
  t.true(receiverWith(second, postedTo(url).at(-1)!).verifies);

  await env.sleep(12 * HOUR);
  const third = await rotate(id);
  await env.sleep(13 * HOUR); // the first rotation's timer has fired: it must not end the second's overlap
  t.truthy((await store.byId(id))?.previousSecretSealed, "the earlier rotation's timer leaves this one alone");
  await tell(id, WEBHOOK_SIGNALS.event, [envelope()]);
  await env.sleep(10 * SECOND);
  const p = postedTo(url).at(-1)!;
  t.true(receiverWith(second, p).verifies && receiverWith(third, p).verifies);
  await env.sleep(12 * HOUR);
  t.is((await store.byId(id))?.previousSecretSealed, null);
});

test.serial(
  'a replay is a new attempt of a past event, signed afresh and logged as a replay; a failing one is attempted at once',
  async (t) => {
    const { id, url } = await newEndpoint();
    const event = envelope();
    await tell(id, WEBHOOK_SIGNALS.event, [event]);
    await env.sleep(10 * SECOND);
    await tell(id, WEBHOOK_SIGNALS.event, [event]); // a fan-out re-send is still dropped
    await env.sleep(HOUR);
    await tell(id, WEBHOOK_SIGNALS.replay, [event]);
    await env.sleep(10 * SECOND);
    const sent = postedTo(url).filter((p) => bodyOf(p).id === event.id);
    t.is(sent.length, 2);
    t.not(sent[0]!.headers['X-Service-Timestamp'], undefined);
    t.is(sent[1]!.body, sent[0]!.body, 'the same envelope');
    const log = await store.attempts(id, 10);
    t.deepEqual(
      log.map((a) => [a.eventId, a.trigger ?? 'event', a.attempt]),
      [
        [event.id, 'replay', 1],
        [event.id, 'event', 1],
      ],
    );

    // A delivery failing on its retry schedule: a replay attempts it now, not at its next retry.
    let failing = true;
    answers.set(url, () => (failing ? 500 : 204));
    const stuck = envelope();
    await tell(id, WEBHOOK_SIGNALS.event, [stuck]);
    await env.sleep(20 * SECOND); // attempts at 0 and 5 s failed; the next is due at 35 s
    failing = false;
    await tell(id, WEBHOOK_SIGNALS.replay, [stuck]);
    await env.sleep(2 * SECOND);
    const tries = postedTo(url).filter((p) => bodyOf(p).id === stuck.id);
    t.is(tries.length, 3);
    t.true(tries[2]!.at - tries[1]!.at < 20 * SECOND, 'replayed before its scheduled retry');
    t.like(await stateOf(id), { pending: 0, consecutiveFailures: 0 });
    answers.delete(url);
  },
);

/** Records `count` events of `accountId`, a second apart from `start` (ms). */
async function recordEvents(
  accountId: string,
  count: number,
  start: number,
  kind: DomainEvent['event'] = 'credits.granted',
): Promise<DomainEvent[]> {
  const record = createEventRecorder(mongo.db);
  const made: DomainEvent[] = [];
  for (let i = 0; i < count; i++) {
    const e = newEvent(accountId, kind, { amount: 1, reason: 'purchase', balance: i }, new Date(start + i * SECOND));
    await record(e);
    made.push(e);
  }
  return made;
}

test.serial(
  'recovery on re-enable sends exactly the missed events, once each, in the order they happened, over several pages',
  async (t) => {
    const { id, url, accountId } = await newEndpoint();
    const endpoint = (await store.byId(id))!;
    // 120 events the endpoint should have had (more than two recovery pages), while it was disabled.
    const start = endpoint.createdAt.getTime() + SECOND;
    const missed = await recordEvents(accountId, 120, start);
    // One of them did get through before the endpoint went down.
    await store.recordAttempt({
      endpointId: id,
      accountId,
      eventId: missed[7]!.id,
      event: 'credits.granted',
      attempt: 1,
      attemptedAt: new Date(),
      statusCode: 200,
      durationMs: 3,
      success: true,
      error: null,
    });
    // Not for this endpoint: a type it does not take, another account's event, one before it existed.
    const [unsubscribed] = await recordEvents(accountId, 1, start + 500, 'call.completed');
    const [elsewhere] = await recordEvents(newId('acc'), 1, start + 600);
    const [older] = await recordEvents(accountId, 1, endpoint.createdAt.getTime() - HOUR);
    await store.mirror(id, { disabled: true, consecutiveFailures: 20, disabledAt: Date.now() });
    const whileDisabled = envelope();
    await tell(id, WEBHOOK_SIGNALS.event, [whileDisabled]); // the workflow starts disabled and records it unsent
    await env.sleep(10 * SECOND);
    t.is(postedTo(url).length, 0);

    // Re-enable with recovery, as the route does it.
    await tell(id, WEBHOOK_SIGNALS.enable);
    await store.enable((await store.byId(id))!, SERVICE_ACTOR);
    await tell(id, WEBHOOK_SIGNALS.recover, [{ since: endpoint.createdAt.getTime() - 2 * HOUR, until: Date.now() }]);
    const live = envelope();
    await tell(id, WEBHOOK_SIGNALS.event, [live]); // a new event meanwhile goes out as usual
    await env.sleep(HOUR);

    const ids = postedTo(url).map((p) => bodyOf(p).id);
    const recovered = ids.filter((x) => x !== live.id);
    const expected = missed.filter((_, i) => i !== 7).map((e) => e.id);
    t.deepEqual(recovered, expected, 'every missed event once, oldest first');
    t.true(ids.includes(live.id));
    for (const skip of [missed[7]!.id, unsubscribed!.id, elsewhere!.id, older!.id, whileDisabled.id]) t.false(ids.includes(skip));
    const log = await collections(mongo.db).webhookAttempts.find({ endpointId: id, trigger: 'recovery' }).toArray();
    t.is(log.length, expected.length);
    t.true(log.every((a) => a.success));
    t.like(await stateOf(id), { recovering: false, pending: 0, disabled: false });

    // Recovering again finds nothing left.
    const count = postedTo(url).length;
    await tell(id, WEBHOOK_SIGNALS.recover, [{ since: endpoint.createdAt.getTime(), until: Date.now() }]);
    await env.sleep(HOUR);
    t.is(postedTo(url).length, count);
  },
);

test.serial('a recovered delivery that fails is retried on the schedule while the rest go on, one after another', async (t) => {
  const { id, url, accountId } = await newEndpoint();
  const endpoint = (await store.byId(id))!;
  const missed = await recordEvents(accountId, 5, endpoint.createdAt.getTime() + SECOND);
  let n = 0;
  answers.set(url, () => (++n === 2 ? 500 : 204)); // the second event's first attempt fails
  await tell(id, WEBHOOK_SIGNALS.recover, [{ since: endpoint.createdAt.getTime(), until: Date.now() }]);
  await env.sleep(HOUR);
  const order = postedTo(url).map((p) => bodyOf(p).id);
  t.deepEqual(
    order,
    [missed[0], missed[1], missed[2], missed[3], missed[4], missed[1]].map((e) => e!.id),
  );
  const firsts = postedTo(url)
    .slice(0, 5)
    .map((p) => p.at);
  t.true(
    firsts.every((at, i) => i === 0 || at >= firsts[i - 1]!),
    'first attempts one after another',
  );
  t.like(await stateOf(id), { recovering: false, pending: 0, consecutiveFailures: 0 });
  answers.delete(url);
});

test.serial('toEnvelope of a recorded event is what recovery sends', async (t) => {
  const { id, url, accountId } = await newEndpoint();
  const [e] = await recordEvents(accountId, 1, (await store.byId(id))!.createdAt.getTime() + SECOND);
  await tell(id, WEBHOOK_SIGNALS.recover, [{ since: 0, until: Date.now() }]);
  await env.sleep(10 * SECOND);
  t.is(postedTo(url).at(-1)!.body, JSON.stringify(toEnvelope(e!)));
});
