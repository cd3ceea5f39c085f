//! The per-account token bucket, kept in the stack's database, on a clock the test controls. Each
//! test takes from buckets of its own (a fresh prefix), so files running beside it never share one.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { createRateLimiter } from '../../api/rate-limit.js';
import { connectMongo, type Mongo } from '../../lib/mongo.js';
import { freePort } from '../../scripts/stack/net.js';
import { testEnv } from '../helpers/env.js';

let mongo: Mongo;
test.before(async () => {
  mongo = await connectMongo(testEnv.mongodbUrl());
});
test.after.always(async () => {
  await mongo?.close();
});

const fresh = () => `test-${randomUUID()}:`;

test('a burst of twice the rate passes, the next call waits for a token', async (t) => {
  let now = 1_000_000;
  const limiter = createRateLimiter({ perSecond: 5, db: mongo.db, now: () => now });
  const a = `${fresh()}a`;
  for (let i = 0; i < 10; i++) t.true((await limiter.take(a)).allowed, `call ${i}`);
  const refused = await limiter.take(a);
  t.false(refused.allowed);
  t.is(refused.remaining, 0);
  t.is(refused.retryAfter, 1);
  t.is(refused.reset, 2);
  now += 200; // one token at 5 per second
  t.true((await limiter.take(a)).allowed);
  t.false((await limiter.take(a)).allowed);
});

test('accounts have their own buckets, refilled up to the burst only', async (t) => {
  let now = 1_000_000;
  const limiter = createRateLimiter({ perSecond: 2, db: mongo.db, now: () => now });
  const [a, b] = [`${fresh()}a`, `${fresh()}b`];
  for (let i = 0; i < 4; i++) await limiter.take(a);
  t.false((await limiter.take(a)).allowed);
  t.true((await limiter.take(b)).allowed);
  now += 60_000;
  const after = await limiter.take(a);
  t.true(after.allowed);
  t.is(after.remaining, 3); // capacity 4, one just taken
});

test('two replicas taking from the same bucket at once give the rate once, not twice', async (t) => {
  const now = 1_000_000;
  // Two API processes: each its own limiter on its own connection, the same database.
  const other = await connectMongo(testEnv.mongodbUrl());
  t.teardown(() => other.close());
  const replicas = [
    createRateLimiter({ perSecond: 5, db: mongo.db, now: () => now }),
    createRateLimiter({ perSecond: 5, db: other.db, now: () => now }),
  ];
  const a = `${fresh()}a`;
  const takes = await Promise.all(Array.from({ length: 30 }, (_, i) => replicas[i % 2]!.take(a)));
  t.is(takes.filter((r) => r.allowed).length, 10, 'the burst of 10, shared');
  t.deepEqual(
    takes
      .filter((r) => r.allowed)
      .map((r) => r.remaining)
      .sort((x, y) => x - y),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    'each token taken once',
  );
});

test("a database that does not answer fails open to the replica's own bucket, at the same rate", async (t) => {
  let now = 1_000_000;
  // Nothing listens there: every take fails to reach a server.
  const down = new MongoClient(`mongodb://127.0.0.1:${await freePort()}/utility_tools`, { serverSelectionTimeoutMS: 200 });
  t.teardown(() => down.close());
  const limiter = createRateLimiter({ perSecond: 2, db: down.db(), now: () => now, timeoutMs: 300 });
  const a = `${fresh()}a`;
  for (let i = 0; i < 4; i++) t.true((await limiter.take(a)).allowed, `call ${i}`);
  const refused = await limiter.take(a);
  t.false(refused.allowed);
  t.is(refused.retryAfter, 1);
  now += 500;
  t.true((await limiter.take(a)).allowed);
});
