//! Which database failures are a moment's outage (503, retried) rather than a bug (500), and
//! steps that wait such an outage out.
import { once } from 'node:events';
import net from 'node:net';
import test from 'ava';
import { MongoClient, MongoNetworkError } from 'mongodb';
import { connectMongo, isDatabaseUnreachable, untilReachable, upsertReturningAfter } from '../../lib/mongo.js';
import { testEnv } from '../helpers/env.js';

/** A real EPIPE: a write to a socket whose other end has closed. */
async function epipe(): Promise<NodeJS.ErrnoException> {
  const server = net.createServer((socket) => socket.end());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  socket.on('error', () => {}); // reported to the write's callback below
  await once(socket, 'end');
  try {
    return await new Promise<NodeJS.ErrnoException>((resolve, reject) => {
      socket.write('x', (err) => (err ? resolve(err) : reject(new Error('the write did not fail'))));
    });
  } finally {
    socket.destroy();
    server.close();
  }
}

test('the EPIPE the driver lets through when it writes to a socket the server closed is an outage', async (t) => {
  const err = await epipe();
  t.is(err.code, 'EPIPE');
  // The frames of the one chaos saw (kill/database), below Node's own.
  err.stack = `${err.stack!.split('\n')[0]}\n    at Socket.writeAfterFIN [as write] (node:net:566:14)\n    at Connection.writeCommand (/srv/app/node_modules/mongodb/src/cmap/connection.ts:722:23)\n    at async Connection.sendWire (/srv/app/node_modules/mongodb/src/cmap/connection.ts:468:7)`;
  t.true(isDatabaseUnreachable(err));
});

test('an EPIPE from anywhere else stays what it is: not the database', async (t) => {
  t.false(isDatabaseUnreachable(await epipe()));
});

test("the driver's own network error is an outage, a plain error is not", (t) => {
  t.true(isDatabaseUnreachable(new MongoNetworkError('connection closed')));
  t.false(isDatabaseUnreachable(new Error('boom')));
  t.false(isDatabaseUnreachable(undefined));
});

// --- untilReachable: a step waits out the database's outage within its deadline ---

/** A TCP relay in front of the test database that can be taken down and brought back on its port. */
async function databaseRelay(): Promise<{ url: string; down(): Promise<void>; up(): Promise<void> }> {
  const target = new URL(testEnv.mongodbUrl());
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  async function up() {
    server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as net.AddressInfo).port;
  }
  async function down() {
    if (!server?.listening) return;
    const closed = new Promise((resolve) => server!.close(resolve));
    for (const s of sockets) s.destroy();
    await closed;
  }
  await up();
  return { url: `mongodb://127.0.0.1:${port}${target.pathname}?directConnection=true`, down, up };
}

/** A client through the relay; each attempt gives up after 2 s without a server (5 s in the service). */
async function clientThrough(url: string): Promise<MongoClient> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 2_000, connectTimeoutMS: 2_000 });
  await client.connect();
  return client;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a step repeated while the database is away answers once it is back, within the deadline', async (t) => {
  const relay = await databaseRelay();
  t.teardown(() => relay.down());
  const client = await clientThrough(relay.url);
  t.teardown(() => client.close());
  await client.db().command({ ping: 1 });
  await relay.down();
  let attempts = 0;
  const answer = untilReachable(Date.now() + 20_000, async () => {
    attempts++;
    return client.db().command({ ping: 1 });
  });
  await sleep(3_000); // past one attempt's server selection: the step is repeated
  await relay.up();
  t.like(await answer, { ok: 1 });
  t.true(attempts > 1, `repeated (${attempts} attempts)`);
});

test('past its deadline the outage itself is thrown, for the API to answer 503', async (t) => {
  const relay = await databaseRelay();
  t.teardown(() => relay.down());
  const client = await clientThrough(relay.url);
  t.teardown(() => client.close());
  await relay.down();
  const err = await t.throwsAsync(untilReachable(Date.now() + 3_000, () => client.db().command({ ping: 1 })));
  t.true(isDatabaseUnreachable(err), String(err));
});

test('any other failure is thrown at once, without a repeat', async (t) => {
  let attempts = 0;
  await t.throwsAsync(
    untilReachable(Date.now() + 10_000, async () => {
      attempts++;
      throw new Error('not an outage');
    }),
    { message: 'not an outage' },
  );
  t.is(attempts, 1);
});

test('upserts of one new _id racing each other each answer the document with their own update in it', async (t) => {
  if (!process.env.MONGODB_URL) throw new Error('MONGODB_URL is not set: run through `npm test`');
  const mongo = await connectMongo(process.env.MONGODB_URL.replace(/\/[^/]*$/, '/upsert_race_tests'));
  t.teardown(() => mongo.close());
  const counters = mongo.db.collection<{ _id: string; n: number }>('counters');
  await counters.deleteMany({});
  for (let round = 0; round < 30; round++) {
    const _id = `round-${round}`;
    const answers = await Promise.all(Array.from({ length: 8 }, () => upsertReturningAfter(counters, { _id }, { $inc: { n: 1 } })));
    t.deepEqual(new Set(answers.map((a) => a._id)), new Set([_id]));
    t.true(answers.every((a) => a.n >= 1 && a.n <= 8));
    t.is((await counters.findOne({ _id }))?.n, 8);
  }
});
