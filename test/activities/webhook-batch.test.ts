//! A batch of webhook attempts (activities/core/webhooks.ts `deliverWebhooks`) on the real
//! database: every attempt posted and recorded, results in the order asked, each with when it
//! ended; an attempt whose record our side failed to write comes back `not_attempted` while the
//! others stand (so they are not posted again), and a batch of which every attempt failed fails.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { connectMongo, type Mongo } from '../../lib/mongo.js';
import { newId } from '../../lib/ids.js';
import { createWebhookActivities } from '../../activities/core/webhooks.js';
import { createWebhookEndpoints } from '../../domain/webhooks/endpoints.js';
import type { WebhookEnvelope } from '../../contracts/webhook-messages.js';
import { testEnv } from '../helpers/env.js';

let mongo: Mongo;
const secretKey = randomBytes(32);

test.before(async () => {
  mongo = await connectMongo(testEnv.mongodbUrl().replace(/\/[^/]*$/, '/webhook_batch_tests'));
});
test.after.always(() => mongo?.close());

const envelope = (): WebhookEnvelope => ({
  id: newId('evt'),
  event: 'credits.low',
  createdAt: '2026-11-28T00:00:00.000+00:00',
  data: { balance: 24 },
});

/**
 * The real database, except that writing the attempt record of the events in `failing` throws, as
 * a write the database refused would.
 */
function refusingAttemptsOf(db: Db, failing: Set<string>): Db {
  return new Proxy(db, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== 'collection') return typeof value === 'function' ? value.bind(target) : value;
      return (name: string) => {
        const collection = target.collection(name);
        if (name !== 'webhook_attempts') return collection;
        return new Proxy(collection, {
          get(c, k, r) {
            const v = Reflect.get(c, k, r);
            if (k !== 'insertOne') return typeof v === 'function' ? v.bind(c) : v;
            return (doc: { eventId: string }) =>
              failing.has(doc.eventId) ? Promise.reject(new Error('write refused')) : c.insertOne(doc as never);
          },
        });
      };
    },
  });
}

/** The event whose delivery the receiver answers with a 500. */
let failAnswer = '';

async function setUp(failing: Set<string>) {
  const store = createWebhookEndpoints(mongo.db, secretKey);
  const { doc } = await store.create(newId('acc'), 'https://hooks.example.com/in');
  const posted: string[] = [];
  const activities = createWebhookActivities({
    db: refusingAttemptsOf(mongo.db, failing),
    secretKey,
    post: async ({ body }) => {
      posted.push(JSON.parse(body).id);
      return { statusCode: JSON.parse(body).id === failAnswer ? 500 : 204 };
    },
  });
  return { endpointId: doc._id, activities, posted, store };
}

test.serial('every attempt of a batch is posted and recorded; results come in the order asked, each with when it ended', async (t) => {
  const events = [envelope(), envelope(), envelope()];
  failAnswer = events[1]!.id;
  const { endpointId, activities, posted, store } = await setUp(new Set());
  const before = Date.now();
  const results = await activities.deliverWebhooks({ endpointId, attempts: events.map((event) => ({ event, attempt: 1 })) });
  t.deepEqual(
    results.map((r) => r.outcome),
    ['delivered', 'failed', 'delivered'],
  );
  t.deepEqual([...posted].sort(), events.map((e) => e.id).sort());
  for (const r of results) t.true('endedAt' in r && r.endedAt >= before && r.endedAt <= Date.now());
  t.is((await store.attempts(endpointId, 10)).length, 3);
});

test.serial("an attempt whose record was not written comes back not attempted; the batch's others stand", async (t) => {
  const events = [envelope(), envelope(), envelope()];
  failAnswer = '';
  const { endpointId, activities, store } = await setUp(new Set([events[1]!.id]));
  const results = await activities.deliverWebhooks({ endpointId, attempts: events.map((event) => ({ event, attempt: 1 })) });
  t.deepEqual(
    results.map((r) => r.outcome),
    ['delivered', 'not_attempted', 'delivered'],
  );
  t.deepEqual((await store.attempts(endpointId, 10)).map((a) => a.eventId).sort(), [events[0]!.id, events[2]!.id].sort());
});

test.serial('a batch of which every attempt failed on our side fails, as a single attempt did', async (t) => {
  const events = [envelope(), envelope()];
  const { endpointId, activities } = await setUp(new Set(events.map((e) => e.id)));
  await t.throwsAsync(activities.deliverWebhooks({ endpointId, attempts: events.map((event) => ({ event, attempt: 1 })) }), {
    message: 'write refused',
  });
});

test.serial('a batch for an endpoint deleted meanwhile posts nothing: every attempt is gone', async (t) => {
  const { activities, posted } = await setUp(new Set());
  const results = await activities.deliverWebhooks({ endpointId: newId('whe'), attempts: [{ event: envelope(), attempt: 1 }] });
  t.deepEqual(
    results.map((r) => r.outcome),
    ['gone'],
  );
  t.deepEqual(posted, []);
});
