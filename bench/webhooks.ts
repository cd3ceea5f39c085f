//! `npm run bench:webhooks`: how long an event takes from being recorded to a receiver having
//! it. 200 `api_key.created` events (POST /api/v1/account/keys) per run, each run to its own
//! endpoint: a receiver in this process on localhost (the stack must run with
//! WEBHOOKS_ALLOW_LOCALHOST=true; the throwaway bench stack does). One run sends each event once
//! the previous one has arrived (the latency of one delivery, nothing queued); the other sends
//! them 16 at a time (a burst at one endpoint: latency with a queue). "Recorded" is the event's
//! `createdAt`, set when the API writes the event, before it answers; "has it" is when the
//! receiver has read the whole request; both clocks are this machine's. The time from the API's
//! answer to arrival is shown beside it.
import { newAccount, request } from '../test/helpers/api.js';
import { registerEndpoint, startReceiver, type Delivery, type Receiver } from '../test/helpers/webhook-receiver.js';
import { figures, printTable, type Figures } from './measure.js';
import { withBenchStack } from './stack.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 200);
const WARMUP = 10;
const DELIVERY_WAIT_MS = 180_000;

interface Sent {
  keyId: string;
  answeredAt: number;
}

/**
 * Creates `count` API keys on the account with `concurrency` requests in flight; with `paced`,
 * each lane waits for an event's delivery before it creates the next key.
 */
async function createKeys(
  ownerToken: string,
  count: number,
  concurrency: number,
  label: string,
  paced?: (keyId: string) => Promise<unknown>,
): Promise<{ sent: Sent[]; errors: number }> {
  const sent: Sent[] = [];
  let errors = 0;
  let next = 0;
  async function lane() {
    while (next < count) {
      const i = next++;
      const res = await request('POST', '/api/v1/account/keys', { token: ownerToken, body: { name: `${label} ${i}` } });
      if (res.status !== 201) {
        if (errors++ === 0) console.error(`  ${label}: first error: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        continue;
      }
      sent.push({ keyId: res.body.id, answeredAt: Date.now() });
      await paced?.(res.body.id);
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { sent, errors };
}

const keyIdOf = (d: Delivery) => (d.body?.event === 'api_key.created' ? (d.body.data.keyId as string) : undefined);

async function deliveredKeys(receiver: Receiver, path: string, keyIds: string[]): Promise<Map<string, Delivery>> {
  const wanted = new Set(keyIds);
  const all = await receiver.waitFor(
    (got) => got.filter((d) => d.path === path && d.answered !== null && wanted.has(keyIdOf(d) ?? '')).length >= wanted.size,
    DELIVERY_WAIT_MS,
    `${wanted.size} deliveries at ${path}`,
  );
  const byKey = new Map<string, Delivery>();
  for (const d of all) {
    const keyId = keyIdOf(d);
    if (d.path === path && keyId && wanted.has(keyId) && !byKey.has(keyId)) byKey.set(keyId, d);
  }
  return byKey;
}

async function run(receiver: Receiver, concurrency: number, paced: boolean): Promise<Figures[]> {
  const name = paced ? 'one at a time' : `${concurrency} at a time`;
  const account = await newAccount(10, `bench webhooks ${name}`);
  const path = `/bench-${paced ? 'paced' : `c${concurrency}`}`;
  await registerEndpoint(account, receiver.url(path));

  // Warm-up: starts the endpoint's workflow and the connections; not counted.
  const warm = await createKeys(account.ownerToken, WARMUP, 1, 'warm-up');
  await deliveredKeys(receiver, path, warm.sent.map((s) => s.keyId));

  const started = Date.now();
  const arrival = paced ? (keyId: string) => deliveredKeys(receiver, path, [keyId]) : undefined;
  const { sent, errors } = await createKeys(account.ownerToken, EVENTS, concurrency, name, arrival);
  const delivered = await deliveredKeys(receiver, path, sent.map((s) => s.keyId));
  const lastArrival = Math.max(...[...delivered.values()].map((d) => d.receivedAt));

  const fromRecorded: number[] = [];
  const fromAnswer: number[] = [];
  for (const s of sent) {
    const d = delivered.get(s.keyId)!;
    fromRecorded.push(d.receivedAt - Date.parse(d.body.createdAt));
    fromAnswer.push(d.receivedAt - s.answeredAt);
  }
  const duplicates = receiver.deliveries(path).length - WARMUP - sent.length;
  if (duplicates !== 0) console.log(`  ${name}: ${duplicates} deliveries more than events (retries or duplicates)`);
  const span = lastArrival - started;
  return [
    figures(`event createdAt -> receiver, ${name}`, concurrency, EVENTS, errors, fromRecorded, span),
    figures(`API answered -> receiver, ${name}`, concurrency, EVENTS, errors, fromAnswer, span),
  ];
}

const rows = await withBenchStack(async () => {
  const receiver = await startReceiver();
  try {
    return [...(await run(receiver, 1, true)), ...(await run(receiver, 16, false))];
  } finally {
    await receiver.close();
  }
});
printTable(`webhooks: ${EVENTS} api_key.created events, from being recorded to the receiver having them (calls/s: deliveries per second)`, rows);
process.exit(0);
