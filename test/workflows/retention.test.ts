//! Retention on the time-skipping server, the sweeper workflow passing its own clock to the
//! sweep: an event is kept 30 days after it happened (recovery reaches back no further); an
//! asynchronous call's answer 24 hours after it ended (its GridFS output too), its record a week
//! longer.
import test from 'ava';
import { CALL_ANSWER_RETENTION_MS, CALL_TOMBSTONE_MS, createAsyncCalls } from '../../domain/calls/async-calls.js';
import { createEventRecorder, newEvent } from '../../domain/events/record.js';
import { EVENT_RETENTION_MS } from '../../contracts/event-kinds.js';
import { newId } from '../../lib/ids.js';
import { collections } from '../../lib/mongo.js';
import { coreBedForFile, runOnce } from './support/core-bed.js';

const bed = coreBedForFile('event_retention_tests');

const DAY = 24 * 3600 * 1000;
const HOUR = 3600 * 1000;
const sweep = () => runOnce(bed(), 'sweeper', 'sweep');
/** In steps: the test server jumps years ahead when asked to sleep past 2^31 ms (24.8 days) at once. */
async function skip(ms: number) {
  for (let left = ms; left > 0; left -= 10 * DAY) await bed().env.sleep(Math.min(left, 10 * DAY));
}

test.serial('events are kept 30 days after they happened, then the sweeper deletes them', async (t) => {
  const { env, mongo } = bed();
  const events = collections(mongo.db).events;
  const record = createEventRecorder(mongo.db);
  const accountId = newId('acc');
  const start = (await env.currentTimeMs()) as number;
  const old = newEvent(accountId, 'credits.granted', { amount: 1, reason: 'purchase', balance: 1 }, new Date(start));
  const younger = newEvent(accountId, 'api_key.created', { keyId: 'key_x', name: null, prefix: 'utk_x' }, new Date(start + 10 * DAY));
  await record(old);
  await record(younger);
  const present = async () => (await events.find({ accountId }).toArray()).map((e) => e._id).sort();

  await skip(EVENT_RETENTION_MS - DAY); // day 29
  await sweep();
  t.deepEqual(await present(), [old.id, younger.id].sort(), 'both kept within 30 days');

  await skip(2 * DAY); // day 31
  const report = (await sweep()) as { events: number };
  t.true(report.events >= 1);
  t.deepEqual(await present(), [younger.id], 'the 31-day-old event is gone; the 21-day-old one stays');

  await skip(10 * DAY); // day 41
  await sweep();
  t.deepEqual(await present(), []);
});

test.serial(
  "an asynchronous call's answer is kept 24 hours after it ended, its large output with it; the record a week longer",
  async (t) => {
    const { env, mongo } = bed();
    const calls = createAsyncCalls(mongo.db);
    const accountId = newId('acc');
    const ended = new Date((await env.currentTimeMs()) as number);
    const small = `call-${accountId}-small`;
    const large = `call-${accountId}-large`;
    for (const requestId of [small, large]) await calls.open({ requestId, accountId, tool: 'hash-text', now: ended });
    await calls.finish(
      { requestId: small, accountId, tool: 'hash-text', result: { ok: true, output: { digest: 'ab' }, charged: 1, balance: 9 } },
      ended,
    );
    const big = { data: 'x'.repeat(400 * 1024) }; // over the inline limit: GridFS
    await calls.finish(
      { requestId: large, accountId, tool: 'hash-text', result: { ok: true, output: big, charged: 1, balance: 8 } },
      ended,
    );
    const files = mongo.db.collection('call_outputs.files');
    const largeDoc = (await calls.byId(accountId, large))!;
    t.truthy(largeDoc.outputFileId);
    t.deepEqual(await calls.readOutput(largeDoc), big);
    t.is(await files.countDocuments({ filename: large }), 1);

    await skip(CALL_ANSWER_RETENTION_MS - HOUR);
    await sweep();
    t.like(await calls.byId(accountId, small), { status: 'succeeded', output: JSON.stringify({ digest: 'ab' }) });
    t.is(await files.countDocuments({ filename: large }), 1, 'kept within 24 h');

    await skip(2 * HOUR);
    await sweep();
    for (const requestId of [small, large]) {
      const doc = (await calls.byId(accountId, requestId))!;
      t.like(doc, { expired: true, status: 'succeeded', charged: 1 });
      t.is(doc.output, undefined);
      t.is(doc.outputFileId, undefined);
    }
    t.is(await files.countDocuments({ filename: large }), 0, 'the GridFS output went with it');

    await skip(CALL_TOMBSTONE_MS);
    await sweep();
    t.is(await calls.byId(accountId, small), null, 'the record is gone a week later');
  },
);

test.serial(
  "people's leftovers go at their end: sessions, mailed tokens, challenges and closed sign-in windows; live ones stay",
  async (t) => {
    const { env, mongo } = bed();
    const c = collections(mongo.db);
    const now = (await env.currentTimeMs()) as number;
    const tag = newId('t');
    const at = (ms: number) => new Date(now + ms);
    const session = (id: string, expiresAt: Date) => ({
      _id: `${id}${tag}`,
      digest: `${id}${tag}`,
      userId: 'usr_x',
      accountId: 'acc_x',
      role: 'owner' as const,
      method: 'password' as const,
      createdAt: at(-DAY),
      authenticatedAt: at(-DAY),
      lastSeenAt: at(-DAY),
      expiresAt,
      endedAt: null,
      ip: null,
      userAgent: null,
    });
    await c.sessions.insertMany([session('ses_old', at(-HOUR)), session('ses_live', at(DAY))]);
    const token = (id: string, expiresAt: Date) => ({
      _id: `${id}${tag}`,
      purpose: 'signup' as const,
      email: 'a@b.example',
      createdAt: at(-DAY),
      expiresAt,
      claimedAt: null,
      completedAt: null,
      revokedAt: null,
    });
    await c.authTokens.insertMany([token('old', at(-1)), token('live', at(HOUR))]);
    await c.webauthnChallenges.insertMany([
      { _id: `old${tag}`, purpose: 'authentication', userId: null, expiresAt: at(-1) },
      { _id: `live${tag}`, purpose: 'authentication', userId: null, expiresAt: at(HOUR) },
    ]);
    await c.signinThrottle.insertMany([
      { _id: `closed${tag}`, windowStart: at(-HOUR), failures: 3, lockedUntil: null },
      { _id: `locked${tag}`, windowStart: at(-HOUR), failures: 10, lockedUntil: at(HOUR) },
      { _id: `open${tag}`, windowStart: at(-60_000), failures: 2, lockedUntil: null },
    ]);
    await sweep();
    const left = async (docs: typeof c.sessions | typeof c.authTokens | typeof c.webauthnChallenges | typeof c.signinThrottle) =>
      (await (docs as typeof c.signinThrottle).find({ _id: { $regex: `${tag}$` } }).toArray()).map((d) => d._id.replace(tag, '')).sort();
    t.deepEqual(await left(c.sessions), ['ses_live']);
    t.deepEqual(await left(c.authTokens), ['live']);
    t.deepEqual(await left(c.webauthnChallenges), ['live']);
    t.deepEqual(await left(c.signinThrottle), ['locked', 'open']);
  },
);

test.serial("the authorization server's codes and tokens go at their expiry; a grant's live tokens stay", async (t) => {
  const { env, mongo } = bed();
  const c = collections(mongo.db);
  const now = (await env.currentTimeMs()) as number;
  const tag = newId('t');
  const record = (id: string, expiresAt: Date | null) => ({
    _id: `${id}${tag}`,
    kind: 'AccessToken',
    payload: {},
    grantId: `grant${tag}`,
    expiresAt,
  });
  await c.oauthStore.insertMany([record('old', new Date(now - 1)), record('live', new Date(now + HOUR)), record('lasting', null)]);
  await sweep();
  const left = (await c.oauthStore.find({ _id: { $regex: `${tag}$` } }).toArray()).map((d) => d._id.replace(tag, '')).sort();
  t.deepEqual(left, ['lasting', 'live']);
});
