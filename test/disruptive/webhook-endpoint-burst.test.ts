//! A burst of 10,000 events at one webhook endpoint: delivered once each, across runs of its
//! workflow that continue as new long before a history nears Temporal's limits. On a Temporal dev
//! server of this file's own, in memory, set as the stack's: a real server, which refuses a
//! continue-as-new that signals overtook and then, while that lasts, the signals themselves, as
//! production's does (the time-skipping server does neither, so a run there swallows the whole
//! burst). Workers of the test's own run the workflow with the claim-check codec as the service
//! does (a run hands the next thousands of deliveries), bookkeeping on a database of its own, and a
//! delivery activity that answers at once: what is judged is the workflow, not HTTP.
import test from 'ava';
import { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { testEnv } from '../helpers/env.js';
import { installQuietRuntime, serviceWorkflowBundle } from '../helpers/workflow-test-bed.js';
import { ClaimCheckCodec } from '../../lib/claim-check-codec.js';
import { TEMPORAL_DYNAMIC_CONFIG } from '../../scripts/stack/services.js';
import { collections, connectMongo, type Mongo } from '../../lib/mongo.js';
import { newId } from '../../lib/ids.js';
import { webhookDeliveryQueue, WORKFLOW_TYPES } from '../../contracts/temporal-names.js';
import { createWebhookEndpoints } from '../../domain/webhooks/endpoints.js';
import { DEFAULT_HISTORY_LIMIT } from '../../workflows/webhook-endpoint.js';
import {
  WEBHOOK_SIGNALS,
  WEBHOOK_STATE_QUERY,
  webhookWorkflowId,
  type WebhookEndpointState,
  type WebhookEnvelope,
} from '../../contracts/webhook-messages.js';
import {
  createWebhookActivities,
  type DeliverBatchRequest,
  type DeliverRequest,
  type DeliverResult,
  type TimedDeliverResult,
} from '../../activities/core/webhooks.js';
import { DEFAULT_ENDPOINT_CONCURRENCY } from '../../contracts/webhook-policy.js';
import { createKeyedBatches } from '../../lib/keyed-batches.js';
import { EVENTS_PER_SIGNAL } from '../../domain/webhooks/fanout.js';

const EVENTS = 10_000;
/**
 * The runs' limit, an eighth of the service's (DEFAULT_HISTORY_LIMIT): a burst sent as production
 * sends it, many events a signal, fills three runs at the service's; at this it hands over some
 * fifteen times, thousands of events pending at the first ones.
 */
const HISTORY_LIMIT = DEFAULT_HISTORY_LIMIT / 8;
/** API processes whose fan-outs signal the endpoint at once. */
const FANOUTS = 4;

let mongo: Mongo;
let env: TestWorkflowEnvironment | undefined;
let client: Client;
let workers: Worker[] = [];
let running: Promise<unknown> | undefined;
const queue = `test-webhook-burst-${newId('q')}`;
const secretKey = randomBytes(32);
/** Event ids in the order their attempts ran. */
const delivered: string[] = [];

async function deliverWebhook(req: DeliverRequest): Promise<DeliverResult> {
  delivered.push(req.event.id);
  return { outcome: 'delivered', statusCode: 204, durationMs: 1 };
}

/** A batch's attempts, each as `deliverWebhook` does it. */
async function deliverWebhooks(req: DeliverBatchRequest): Promise<TimedDeliverResult[]> {
  return Promise.all(
    req.attempts.map(async (a) => ({ ...(await deliverWebhook({ endpointId: req.endpointId, ...a })), endedAt: Date.now() })),
  );
}

test.before(async () => {
  installQuietRuntime();
  mongo = await connectMongo(testEnv.mongodbUrl().replace(/\/[^/]*$/, '/webhook_burst_tests'));
  env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: testEnv.temporalCliPath() },
      extraArgs: TEMPORAL_DYNAMIC_CONFIG.flatMap((setting) => ['--dynamic-config-value', setting]),
      log: { format: 'pretty', level: 'error' },
    },
  });
  const dataConverter = { payloadCodecs: [new ClaimCheckCodec(mongo.db)] };
  client = new Client({ connection: env.connection, dataConverter });
  const common = { connection: env.nativeConnection, dataConverter };
  const real = createWebhookActivities({ db: mongo.db, secretKey, post: async () => ({ statusCode: 204 }) });
  workers = [
    await Worker.create({ ...common, taskQueue: queue, workflowBundle: await serviceWorkflowBundle(), activities: real }),
    await Worker.create({ ...common, taskQueue: webhookDeliveryQueue(queue), activities: { deliverWebhook, deliverWebhooks } }),
  ];
  running = Promise.all(workers.map((w) => w.run()));
});

test.after.always(async () => {
  for (const w of workers) w.shutdown();
  await running?.catch(() => {});
  await env?.teardown();
  await mongo?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a burst of 10,000 events to one endpoint is delivered once each, across runs that continue as new long before a history nears its limits', async (t) => {
  t.timeout(10 * 60_000);
  const { doc } = await createWebhookEndpoints(mongo.db, secretKey).create(newId('acc'), 'https://hooks.example.com/in');
  const endpointId = doc._id;
  const workflowId = webhookWorkflowId(endpointId);
  const events: WebhookEnvelope[] = Array.from({ length: EVENTS }, (_, i) => ({
    id: newId('evt'),
    event: 'call.completed',
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString().replace('Z', '+00:00'),
    data: { index: i },
  }));

  // As the fan-outs of a few API processes send a burst recorded at once: signal-with-start, each
  // process's events bound for the endpoint while its signal to it is on the way going together in
  // its next (EVENTS_PER_SIGNAL at most). A signal the server refuses (it does while a run's
  // hand-over keeps failing on signals that overtook it) is sent again, as the sweep would send it.
  let firstRunId: string | undefined;
  let refused = 0;
  let signals = 0;
  async function signal(batch: WebhookEnvelope[]) {
    for (;;) {
      try {
        const handle = await client.workflow.signalWithStart(WORKFLOW_TYPES.webhookEndpoint, {
          workflowId,
          taskQueue: queue,
          args: [{ endpointId, historyLimit: HISTORY_LIMIT }],
          signal: WEBHOOK_SIGNALS.events,
          signalArgs: [batch],
        });
        firstRunId ??= handle.signaledRunId;
        signals++;
        return;
      } catch {
        refused++;
        await sleep(200);
      }
    }
  }
  const started = Date.now();
  await signal([events[0]!]); // the first alone: it starts the workflow
  const fanouts = Array.from({ length: FANOUTS }, () =>
    createKeyedBatches<WebhookEnvelope>((_, batch) => signal(batch), EVENTS_PER_SIGNAL),
  );
  await Promise.all(events.slice(1).map((e, i) => fanouts[i % FANOUTS]!.add(endpointId, e)));

  const giveUpAt = Date.now() + 8 * 60_000;
  while (new Set(delivered).size < EVENTS) {
    if (Date.now() > giveUpAt) throw new Error(`${new Set(delivered).size} of ${EVENTS} delivered`);
    await sleep(200);
  }
  await sleep(1000); // room for a second attempt of any, were there one
  t.is(delivered.length, EVENTS, 'one attempt each');
  t.is(new Set(delivered).size, EVENTS, 'every event');
  t.is(await collections(mongo.db).webhookUndelivered.countDocuments({ endpointId }), 0, 'none ended undelivered');
  const state = await client.workflow.getHandle(workflowId).query<WebhookEndpointState>(WEBHOOK_STATE_QUERY);
  t.like(state, { pending: 0, inFlight: 0, consecutiveFailures: 0, concurrency: DEFAULT_ENDPOINT_CONCURRENCY });

  // Every run's history, following continue-as-new from the first.
  const lengths: number[] = [];
  for (let runId = firstRunId; runId; ) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    lengths.push(history.events?.length ?? 0);
    runId = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  t.log(
    `delivered in ${((Date.now() - started) / 1000).toFixed(0)} s by ${lengths.length} runs, history lengths ${lengths.join(' ')}; ${signals} signals, ${refused} refused and sent again`,
  );
  t.is(lengths.length, state.run, 'the chain of runs ends at the one answering');
  t.true(lengths.length >= 10, `continued as new: ${lengths.length} runs`);
  // Temporal warns at 10,240 events and ends a run at 51,200. A run hands over from HISTORY_LIMIT
  // on, once its attempts in flight are back: a little past it, with the signals that came meanwhile.
  t.true(Math.max(...lengths) < 2.5 * HISTORY_LIMIT, `the longest run's history: ${Math.max(...lengths)} events`);

  await client.workflow.getHandle(workflowId).signal(WEBHOOK_SIGNALS.remove);
});
