//! MCP sessions on the real database: a running call's record, found by its cancellation (or
//! finding the cancellation that came first), and telling its end that the client cancelled; a session is its credential's, and one
//! ended is unknown at once to the process that ended it and to any other.
import test from 'ava';
import { collections, connectMongo, type Mongo } from '../../lib/mongo.js';
import { createMcpSessions } from '../../domain/mcp-sessions.js';

let mongo: Mongo;

test.before(async () => {
  if (!process.env.MONGODB_URL) throw new Error('MONGODB_URL is not set: run through `npm test`');
  mongo = await connectMongo(process.env.MONGODB_URL.replace(/\/[^/]*$/, '/mcp_sessions_tests'));
});
test.after.always(() => mongo?.close());

const owner = { accountId: 'acc_test', credentialId: 'key_test' };
const later = () => Date.now() + 60_000;

test('a cancellation finds the running call by its request id, within its session only', async (t) => {
  const sessions = createMcpSessions(mongo.db);
  const [session, other] = [await sessions.open(owner), await sessions.open(owner)];
  t.false(await sessions.running(session, 7, 'call-7', later()), 'nothing cancelled it before it ran');
  t.false(await sessions.wasCancelled(session, 7, 'call-7'));
  t.is(await sessions.cancel(other, 7), null, 'the same id in another session names nothing');
  t.is(await sessions.cancel(session, '7'), null, '"7" is not 7');
  t.is(await sessions.cancel(session, 7), 'call-7');
  t.true(await sessions.wasCancelled(session, 7, 'call-7'), 'its answer is held back');
  t.false(await sessions.wasCancelled(session, 7, 'call-other'), 'only that call was');

  // A request id the client used again names the newer call, not cancelled.
  t.false(await sessions.running(session, 7, 'call-7b', later()));
  t.false(await sessions.wasCancelled(session, 7, 'call-7b'));
});

test('a cancellation that comes before its call recorded itself is found by the call, which then is cancelled', async (t) => {
  const sessions = createMcpSessions(mongo.db);
  const session = await sessions.open(owner);
  t.is(await sessions.cancel(session, 9), null, 'nothing runs yet');
  t.true(await sessions.running(session, 9, 'call-9', later()), 'the call finds the mark');
  t.true(await sessions.wasCancelled(session, 9, 'call-9'));
});

test("a cancellation racing its call's record: whichever comes second, one of them cancels the call", async (t) => {
  const sessions = createMcpSessions(mongo.db);
  const session = await sessions.open(owner);
  for (let i = 0; i < 40; i++) {
    const [found, markedFirst] = await Promise.all([sessions.cancel(session, i), sessions.running(session, i, `call-${i}`, later())]);
    t.true(found === `call-${i}` || markedFirst, `round ${i}: the cancellation reached the call`);
    t.true(await sessions.wasCancelled(session, i, `call-${i}`));
  }
});

test("a session is its credential's, and one ended is unknown at once, here and to another process", async (t) => {
  const sessions = createMcpSessions(mongo.db);
  const session = await sessions.open(owner);
  t.is(await collections(mongo.db).mcpSessions.countDocuments({ _id: session }), 0, 'the id itself is not stored');
  t.true(await sessions.isOwn(session, owner.credentialId));
  t.false(await sessions.isOwn(session, 'key_other'));
  t.false(await sessions.end(session, 'key_other'));
  t.true(await sessions.isOwn(session, owner.credentialId));
  t.true(await createMcpSessions(mongo.db).isOwn(session, owner.credentialId), 'another process reads it');
  t.true(await sessions.end(session, owner.credentialId));
  t.false(await sessions.isOwn(session, owner.credentialId));
  t.false(await createMcpSessions(mongo.db).isOwn(session, owner.credentialId));
});
