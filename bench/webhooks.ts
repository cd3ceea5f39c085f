//! `npm run bench:webhooks`: how long an event takes from being recorded to a receiver having it,
//! and how fast a burst at one endpoint drains, at the endpoint's concurrency of 1 (one attempt
//! at a time: the baseline) and at the stack's WEBHOOK_ENDPOINT_CONCURRENCY, in one run.
//!
//! Events are `webhook.test`s recorded in this process by the domain's own recorder
//! (domain/events/record.ts) into the stack's database and handed to the same fan-out the API and workers
//! use (domain/webhooks/fanout.ts: signal-with-start of the endpoint's workflow): the API's own
//! overhead (and, for key changes, the account's audit chain) would spread a burst over seconds on
//! a busy machine, while this records BURST of them, 32 at a time, within a fraction of a second
//! (the output says how long). The receiver is in this process on localhost (the stack runs with
//! WEBHOOKS_ALLOW_LOCALHOST=true; the throwaway bench stack does). "Recorded" is the event's
//! `createdAt`; "has it" is when the receiver has read the whole request; both clocks are this
//! machine's. An endpoint's concurrency is set by starting its workflow with it before its first
//! event (`WebhookEndpointInput.concurrency`), so a given stack needs TEMPORAL_ADDRESS and
//! MONGODB_URL.
//!
//! Rows, each endpoint of its own account: one event at a time (the next sent once the last
//! arrived) at 1 and at the default; the burst at 1 and at the default; one at a time at the
//! default while another account's endpoint, with a backlog, answers every delivery after 10 s
//! (re-enabled whenever its failures disable it). It ends with one line for tools to read:
//! `webhooks burst: <n> events, deliveries/s <b> at 1, <d> at <N> (<ratio>x), p99 <ms> ms`.
import { Client, Connection } from '@temporalio/client';
import { newAccount, request, type TestAccount } from '../test/helpers/api.js';
import { createEventRecorder, newEvent, type EventRecorder } from '../domain/events/index.js';
import { createWebhookFanout } from '../domain/webhooks/index.js';
import { ClaimCheckCodec } from '../lib/claim-check-codec.js';
import { createLogger } from '../lib/logger.js';
import { connectMongo } from '../lib/mongo.js';
import { registerEndpoint, startReceiver, type Delivery, type Receiver } from '../test/helpers/webhook-receiver.js';
import { TASK_QUEUES, WORKFLOW_TYPES } from '../contracts/temporal-names.js';
import { webhookWorkflowId, type WebhookEndpointInput } from '../contracts/webhook-messages.js';
import { DEFAULT_ENDPOINT_CONCURRENCY, endpointConcurrency } from '../contracts/webhook-policy.js';
import { figures, printTable, type Figures } from './measure.js';
import { withBenchStack } from './stack.js';
import { temporalConnectOptions } from '../lib/config-temporal.js';

const BURST = Number(process.env.BENCH_EVENTS ?? 200);
const PACED = Number(process.env.BENCH_PACED_EVENTS ?? 100);
/** The stack's WEBHOOK_ENDPOINT_CONCURRENCY: the throwaway stack leaves it at its default. */
const DEFAULT = endpointConcurrency(Number(process.env.WEBHOOK_ENDPOINT_CONCURRENCY ?? DEFAULT_ENDPOINT_CONCURRENCY));
const SENDERS = 32;
const WARMUP = 5;
const DELIVERY_WAIT_MS = 180_000;
/** The slow endpoint's answer comes this long after a delivery: past the 10 s wait, a failure each. */
const SLOW_ANSWER_MS = 10_500;

interface Measured {
  row: Figures;
  /** First to last `createdAt` of the measured events, ms. */
  recordedWithinMs: number;
  deliveriesPerSecond: number;
}

/** Records the service's events here and fans them out as the service does. */
let record: EventRecorder;

/** Records a `webhook.test` for the endpoint, as Send test does, and hands it to the fan-out. */
async function sendTest(account: TestAccount, endpointId: string): Promise<string> {
  const event = newEvent(account.id, 'webhook.test', { endpointId, message: 'bench:webhooks' });
  await record(event);
  return event.id;
}

/** Sends `count` test events, `lanes` at a time; with `paced`, each lane waits for its event's delivery before the next. */
async function sendTests(
  account: TestAccount,
  endpointId: string,
  count: number,
  lanes: number,
  paced?: (eventId: string) => Promise<unknown>,
): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  async function lane() {
    while (next++ < count) {
      const id = await sendTest(account, endpointId);
      ids.push(id);
      await paced?.(id);
    }
  }
  await Promise.all(Array.from({ length: lanes }, lane));
  return ids;
}

async function delivered(receiver: Receiver, path: string, ids: string[]): Promise<Map<string, Delivery>> {
  const wanted = new Set(ids);
  const all = await receiver.waitFor(
    (got) =>
      new Set(got.filter((d) => d.path === path && d.answered !== null && wanted.has(d.body?.id)).map((d) => d.body.id)).size >=
      wanted.size,
    DELIVERY_WAIT_MS,
    `${wanted.size} deliveries at ${path}`,
  );
  const byId = new Map<string, Delivery>();
  for (const d of all) if (d.path === path && wanted.has(d.body?.id) && !byId.has(d.body.id)) byId.set(d.body.id, d);
  return byId;
}

/** A new account's endpoint at `path`, its workflow started at `concurrency`, warmed up (connections, caches). */
async function endpointAt(
  client: Client,
  receiver: Receiver,
  path: string,
  concurrency: number,
  warm = true,
): Promise<{ account: TestAccount; endpointId: string }> {
  const account = await newAccount(10, `bench webhooks ${path}`);
  const endpoint = await registerEndpoint(account, receiver.url(path));
  const input: WebhookEndpointInput = { endpointId: endpoint.id, concurrency };
  await client.workflow.start(WORKFLOW_TYPES.webhookEndpoint, {
    workflowId: webhookWorkflowId(endpoint.id),
    taskQueue: TASK_QUEUES.core,
    args: [input],
  });
  if (warm) await delivered(receiver, path, await sendTests(account, endpoint.id, WARMUP, 1, (id) => delivered(receiver, path, [id])));
  return { account, endpointId: endpoint.id };
}

async function run(
  client: Client,
  receiver: Receiver,
  label: string,
  concurrency: number,
  burst: boolean,
  path: string,
): Promise<Measured> {
  const { account, endpointId } = await endpointAt(client, receiver, path, concurrency);
  const count = burst ? BURST : PACED;
  const ids = burst
    ? await sendTests(account, endpointId, count, SENDERS)
    : await sendTests(account, endpointId, count, 1, (id) => delivered(receiver, path, [id]));
  const got = await delivered(receiver, path, ids);
  const recorded = ids.map((id) => Date.parse(got.get(id)!.body.createdAt));
  const received = ids.map((id) => got.get(id)!.receivedAt);
  const firstRecorded = Math.min(...recorded);
  const spanMs = Math.max(...received) - firstRecorded;
  const extra = receiver.deliveries(path).length - WARMUP - ids.length;
  if (extra !== 0) console.log(`  ${label}: ${extra} deliveries more than events (retries or duplicates)`);
  return {
    row: figures(
      label,
      concurrency,
      count,
      0,
      ids.map((_, i) => received[i]! - recorded[i]!),
      spanMs,
    ),
    recordedWithinMs: Math.max(...recorded) - firstRecorded,
    deliveriesPerSecond: count / (spanMs / 1000),
  };
}

/**
 * Another account's endpoint that answers every delivery after 10 s, with `backlog` events queued
 * and re-enabled whenever its failures disable it, until `stop` is called.
 */
async function slowEndpoint(client: Client, receiver: Receiver, backlog: number) {
  const path = '/slow';
  receiver.behave(path, () => ({ status: 200, delayMs: SLOW_ANSWER_MS }));
  const { account, endpointId } = await endpointAt(client, receiver, path, DEFAULT, false);
  const open = (all: Delivery[]) => all.filter((d) => d.path === path && d.closedAt === null).length;
  await sendTests(account, endpointId, backlog, SENDERS);
  await receiver.waitFor((all) => open(all) >= DEFAULT, DELIVERY_WAIT_MS, `${DEFAULT} deliveries held by the slow endpoint`);
  let stopped = false;
  const keepSlow = (async () => {
    while (!stopped) {
      const list = await request('GET', '/api/v1/account/webhooks', { token: account.ownerToken });
      if (list.body?.find?.((e: { id: string; status: string }) => e.id === endpointId)?.status === 'disabled') {
        await request('POST', `/api/v1/account/webhooks/${endpointId}/enable`, { token: account.ownerToken });
        await sendTests(account, endpointId, DEFAULT, SENDERS);
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return {
    /** Deliveries the slow endpoint holds open right now. */
    open: () => open(receiver.deliveries()),
    async stop() {
      stopped = true;
      await keepSlow;
      await request('DELETE', `/api/v1/account/webhooks/${endpointId}`, { token: account.ownerToken });
    },
  };
}

const fmt = (n: number) => n.toFixed(1);

const results = await withBenchStack(async (stack) => {
  if (!stack.temporal || !stack.mongodbUrl)
    throw new Error('bench:webhooks records events and starts workflows itself: give TEMPORAL_ADDRESS and MONGODB_URL with API_URL');
  const mongo = await connectMongo(stack.mongodbUrl);
  const connection = await Connection.connect(temporalConnectOptions(stack.temporal));
  const client = new Client({
    connection,
    namespace: stack.temporal.namespace,
    dataConverter: { payloadCodecs: [new ClaimCheckCodec(mongo.db)] },
  });
  record = createEventRecorder(
    mongo.db,
    createWebhookFanout({ db: mongo.db, client, log: createLogger({ name: 'bench', level: 'warn' }) }).onEvent,
  );
  const receiver = await startReceiver();
  try {
    const pacedOne = await run(client, receiver, 'one event at a time, concurrency 1', 1, false, '/paced-1');
    const pacedDefault = await run(client, receiver, `one event at a time, concurrency ${DEFAULT}`, DEFAULT, false, `/paced-${DEFAULT}`);
    const burstOne = await run(client, receiver, `burst of ${BURST}, concurrency 1 (baseline)`, 1, true, '/burst-1');
    const burstDefault = await run(client, receiver, `burst of ${BURST}, concurrency ${DEFAULT}`, DEFAULT, true, `/burst-${DEFAULT}`);
    const slow = await slowEndpoint(client, receiver, 4 * DEFAULT);
    const openAtStart = slow.open();
    let fewestOpen = openAtStart;
    const watch = setInterval(() => (fewestOpen = Math.min(fewestOpen, slow.open())), 100);
    const beside = await run(
      client,
      receiver,
      `one event at a time, concurrency ${DEFAULT}, beside an endpoint answering after 10 s`,
      DEFAULT,
      false,
      '/paced-beside-slow',
    );
    clearInterval(watch);
    await slow.stop();
    return { pacedOne, pacedDefault, burstOne, burstDefault, beside, openAtStart, fewestOpen };
  } finally {
    await receiver.close();
    await connection.close();
    await mongo.close();
  }
});

const { pacedOne, pacedDefault, burstOne, burstDefault, beside } = results;
printTable('webhooks: from an event being recorded to the receiver having it (calls/s: deliveries per second)', [
  pacedOne.row,
  pacedDefault.row,
  burstOne.row,
  burstDefault.row,
  beside.row,
]);
console.log(
  `bursts recorded within ${burstOne.recordedWithinMs} ms (at 1) and ${burstDefault.recordedWithinMs} ms (at ${DEFAULT}) of their first event`,
);
console.log(
  `one at a time: p50 ${fmt(pacedDefault.row.p50Ms)} ms at ${DEFAULT}, ${fmt(pacedOne.row.p50Ms)} ms at 1 (${fmt(pacedDefault.row.p50Ms / pacedOne.row.p50Ms)}x)`,
);
console.log(
  `beside an endpoint answering after 10 s (it held ${results.openAtStart} deliveries open as the row began, never fewer than ${results.fewestOpen}): ` +
    `p50 ${fmt(beside.row.p50Ms)} ms, ${fmt(beside.row.p50Ms / pacedDefault.row.p50Ms)}x its p50 alone`,
);
console.log(
  `webhooks burst: ${BURST} events, deliveries/s ${fmt(burstOne.deliveriesPerSecond)} at 1, ${fmt(burstDefault.deliveriesPerSecond)} at ${DEFAULT} ` +
    `(${fmt(burstDefault.deliveriesPerSecond / burstOne.deliveriesPerSecond)}x), p99 ${Math.round(burstDefault.row.p99Ms)} ms`,
);
process.exit(0);
