//! MCP sessions on the real database: a running call's record, found by its cancellation and
//! telling its start and its end that the client cancelled; a session is its credential's, and one
//! ended is unknown at once to the process that ended it and to any other.
import test from 'ava';
import { connectMongo, type Mongo } from '../../lib/mongo.js';
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
  t.is(await sessions.cancel(session, 7), null, 'nothing runs yet');
  await sessions.running(session, 7, 'call-7', later());
  t.false(await sessions.cancelledMeanwhile(session, 7, 'call-7'));
  t.is(await sessions.cancel(other, 7), null, 'the same id in another session names nothing');
  t.is(await sessions.cancel(session, '7'), null, '"7" is not 7');
  t.is(await sessions.cancel(session, 7), 'call-7');
  t.true(await sessions.cancelledMeanwhile(session, 7, 'call-7'));
  t.true(await sessions.ended(session, 7, 'call-7'), 'its answer is held back');
  t.is(await sessions.cancel(session, 7), null, 'an ended call is forgotten');

  await sessions.running(session, 8, 'call-8', later());
  t.false(await sessions.ended(session, 8, 'call-8'), 'never cancelled');
});

test("a session is its credential's, and one ended is unknown at once, here and to another process", async (t) => {
  const sessions = createMcpSessions(mongo.db);
  const session = await sessions.open(owner);
  t.true(await sessions.isOwn(session, owner.credentialId));
  t.false(await sessions.isOwn(session, 'key_other'));
  t.false(await sessions.end(session, 'key_other'));
  t.true(await sessions.isOwn(session, owner.credentialId));
  t.true(await createMcpSessions(mongo.db).isOwn(session, owner.credentialId), 'another process reads it');
  t.true(await sessions.end(session, owner.credentialId));
  t.false(await sessions.isOwn(session, owner.credentialId));
  t.false(await createMcpSessions(mongo.db).isOwn(session, owner.credentialId));
});
