//! The audit chain's head on the real database: appends from two processes (two audit logs, each
//! remembering the head it last saw) take turns on one account and every entry follows the one
//! before it; after retention swept the newest entries a process had seen, an append follows the
//! entry still kept.
import test from 'ava';
import { connectMongo, collections, ensureIndexes, type Mongo } from '../../lib/mongo.js';
import { auditDraft, createAuditLog, SERVICE_ACTOR } from '../../domain/audit/index.js';
import { newId } from '../../lib/ids.js';

let mongo: Mongo;

test.before(async () => {
  if (!process.env.MONGODB_URL) throw new Error('MONGODB_URL is not set: run through `npm test`');
  mongo = await connectMongo(process.env.MONGODB_URL.replace(/\/[^/]*$/, '/audit_chain_tests'));
  await ensureIndexes(mongo.db); // the chain's places are unique per account
});
test.after.always(() => mongo?.close());

const draft = (accountId: string, i: number, at = new Date()) =>
  auditDraft(SERVICE_ACTOR, accountId, 'api_key.updated', { type: 'api_key', id: `key_${i}` }, { name: [null, `n${i}`] }, at);

test('appends from two processes that each remember a head take turns and keep one chain', async (t) => {
  const accountId = newId('acct');
  const [one, two] = [createAuditLog(mongo.db), createAuditLog(mongo.db)];
  for (let i = 0; i < 12; i++) await (i % 3 === 2 ? two : one).append(draft(accountId, i));
  await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? one : two).append(draft(accountId, 100 + i))));

  const entries = await collections(mongo.db).auditLog.find({ accountId }).sort({ seq: 1 }).toArray();
  t.deepEqual(
    entries.map((e) => e.seq),
    Array.from({ length: 20 }, (_, i) => i + 1),
    'one place each, none skipped',
  );
  t.deepEqual(await one.verify(accountId), { ok: true, entries: 20 });
});

test('after retention swept the entries from the head a process had seen on, its next append follows the entry still kept', async (t) => {
  // A draft appended late carries its own older time: here the chain's last two entries are older
  // than its first, so retention takes them and keeps the first.
  const accountId = newId('acct');
  const log = createAuditLog(mongo.db);
  const old = new Date(Date.now() - 400 * 86_400_000);
  await log.append(draft(accountId, 0));
  for (let i = 1; i < 3; i++) await log.append(draft(accountId, i, old));
  await collections(mongo.db).auditLog.deleteMany({ accountId, at: { $lt: new Date(Date.now() - 86_400_000) } });

  await log.append(draft(accountId, 3));
  const entries = await collections(mongo.db).auditLog.find({ accountId }).sort({ seq: 1 }).toArray();
  t.deepEqual(
    entries.map((e) => e.seq),
    [1, 2],
  );
  t.deepEqual(await log.verify(accountId), { ok: true, entries: 2 });
});
