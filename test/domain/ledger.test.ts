//! The ledger on the real database: atomic reserve, idempotent commit/refund, exactly-once
//! balance events, latches re-armed by grants.
import test from 'ava';
import { connectMongo, collections, type Mongo } from '../../lib/mongo.js';
import { createLedger, type Ledger } from '../../domain/ledger/ledger.js';
import { createAccounts } from '../../domain/accounts/accounts.js';
import { createGrants } from '../../domain/ledger/grants.js';

let mongo: Mongo;
let ledger: Ledger;

test.before(async () => {
  if (!process.env.MONGODB_URL) throw new Error('MONGODB_URL is not set: run through `npm test`');
  mongo = await connectMongo(process.env.MONGODB_URL.replace(/\/[^/]*$/, '/ledger_tests'));
  ledger = createLedger(mongo.db);
});
test.after.always(() => mongo?.close());

async function account(credits: number) {
  return (await createAccounts(mongo.db).open({ credits })).account._id;
}

const eventsOf = (accountId: string, event: string) => collections(mongo.db).events.find({ accountId, event }).toArray();
// Request ids are global (they are workflow ids), so each account's calls carry its id.
const call = (accountId: string, i: number | string, cost = 1) => ({ accountId, requestId: `${accountId}-r${i}`, tool: 'hash-text', cost });

test('100 concurrent calls on a balance that affords 40: exactly 40 reserve, one low and one exhausted event', async (t) => {
  const id = await account(40);
  const reserved = await Promise.all(Array.from({ length: 100 }, (_, i) => ledger.reserve(call(id, i))));
  const winners = reserved.map((r, i) => (r.ok ? i : -1)).filter((i) => i >= 0);
  t.is(winners.length, 40);
  t.true(reserved.every((r) => r.balance >= 0));
  await Promise.all(winners.map((i) => ledger.commit(call(id, i))));
  const doc = await ledger.balanceOf(id);
  t.is(doc.balance, 0);
  t.is(doc.chargedBalance, 0);
  t.deepEqual(doc.holds, {});
  t.deepEqual(doc.outbox, []);
  const low = await eventsOf(id, 'credits.low');
  t.is(low.length, 1);
  t.is(low[0]!.data.threshold, 25);
  t.true((low[0]!.data.balance as number) < 25);
  t.is((await eventsOf(id, 'credits.exhausted')).length, 1);
  t.is(await collections(mongo.db).ledger.countDocuments({ accountId: id, outcome: 'charged' }), 40);
});

test('a repeated reserve, commit or refund is a no-op', async (t) => {
  const id = await account(10);
  await ledger.reserve(call(id, 'a', 3));
  await ledger.reserve(call(id, 'a', 3));
  t.is((await ledger.balanceOf(id)).balance, 7);
  await ledger.commit(call(id, 'a', 3));
  await ledger.commit(call(id, 'a', 3));
  const doc = await ledger.balanceOf(id);
  t.is(doc.balance, 7);
  t.is(doc.chargedBalance, 7);
  await ledger.reserve(call(id, 'b', 3));
  await ledger.refund(call(id, 'b', 3));
  await ledger.refund(call(id, 'b', 3));
  t.is((await ledger.balanceOf(id)).balance, 7);
});

test("a commit past the call's answerBy refunds, and the first decision holds for every retry", async (t) => {
  const id = await account(10);
  const late = { ...call(id, 'late', 3), answerBy: Date.now() - 1 };
  await ledger.reserve(late);
  t.like(await ledger.commit(late), { outcome: 'refunded', charged: 0, balance: 10 });
  // A retry that would now be on time (another worker's clock) still refunds, once.
  t.like(await ledger.commit({ ...late, answerBy: undefined }), { outcome: 'refunded', balance: 10 });

  const onTime = { ...call(id, 'on-time', 3), answerBy: Date.now() + 60_000 };
  await ledger.reserve(onTime);
  t.like(await ledger.commit(onTime), { outcome: 'charged', charged: 3, balance: 7 });
  // Retried after answerBy (its worker died after the write): still the charge, not a refund.
  t.like(await ledger.commit({ ...onTime, answerBy: Date.now() - 1 }), { outcome: 'charged', balance: 7 });
  t.like(await ledger.balanceOf(id), { balance: 7, chargedBalance: 7, holds: {} });
  const entries = await collections(mongo.db).ledger.find({ accountId: id }).sort({ _id: 1 }).toArray();
  t.deepEqual(
    entries.map((e) => [e._id, e.outcome, e.credits]),
    [
      [late.requestId, 'refunded', 0],
      [onTime.requestId, 'charged', 3],
    ],
  );
});

test('a commit interrupted between its ledger entry and the account completes that decision when retried', async (t) => {
  const id = await account(10);
  const c = call(id, 'torn', 4);
  await ledger.reserve(c);
  // What a crash right after the first write leaves: the entry, and the hold still in place.
  await collections(mongo.db).ledger.insertOne({
    _id: c.requestId,
    accountId: id,
    tool: c.tool,
    credits: 4,
    outcome: 'charged',
    at: new Date(),
  });
  t.like(await ledger.commit({ ...c, answerBy: Date.now() - 1 }), { outcome: 'charged', balance: 6 });
  t.like(await ledger.balanceOf(id), { balance: 6, chargedBalance: 6, holds: {} });
});

test('a commit and a refund of one call racing end as one decision: the ledger entry and the balance agree', async (t) => {
  // Each round races the two decisions of a fresh call several times over: the database answers
  // some losing upserts of the entry with no document, and a loser must still follow the winner.
  const id = await account(200);
  for (let i = 0; i < 40; i++) {
    const c = call(id, `race${i}`, 1);
    await ledger.reserve(c);
    await Promise.all([ledger.commit(c), ledger.refund(c), ledger.commit(c), ledger.refund(c)]);
  }
  const entries = await collections(mongo.db).ledger.find({ accountId: id }).toArray();
  t.is(entries.length, 40);
  const charged = entries.filter((e) => e.outcome === 'charged').length;
  const doc = await ledger.balanceOf(id);
  t.deepEqual(doc.holds, {});
  t.is(doc.balance, 200 - charged, `${charged} charged, ${40 - charged} refunded`);
  t.is(doc.chargedBalance, 200 - charged);
});

test('a refunded call fires no balance event', async (t) => {
  const id = await account(26);
  await ledger.reserve(call(id, 'x', 26));
  await ledger.refund(call(id, 'x', 26));
  t.is((await eventsOf(id, 'credits.low')).length, 0);
  t.is((await eventsOf(id, 'credits.exhausted')).length, 0);
});

test('credits.low fires again only after a grant lifts the balance back to 25 or more', async (t) => {
  const id = await account(30);
  for (const [i, cost] of [
    [1, 6],
    [2, 2],
  ] as const) {
    await ledger.reserve(call(id, i, cost));
    await ledger.commit(call(id, i, cost));
  }
  t.is((await eventsOf(id, 'credits.low')).length, 1); // 30 -> 24 (fires) -> 22
  await createGrants(mongo.db).grant({ accountId: id, amount: 2, reason: 'manual_adjustment' }); // 24: still low, no re-arm
  await ledger.reserve(call(id, 3, 1));
  await ledger.commit(call(id, 3, 1));
  t.is((await eventsOf(id, 'credits.low')).length, 1);
  await createGrants(mongo.db).grant({ accountId: id, amount: 10, reason: 'purchase' }); // 33
  await ledger.reserve(call(id, 4, 10));
  await ledger.commit(call(id, 4, 10)); // 23
  const low = await eventsOf(id, 'credits.low');
  t.is(low.length, 2);
  t.is(
    low
      .map((e) => e.data.balance as number)
      .sort()
      .join(','),
    '23,24',
  );
  const granted = await eventsOf(id, 'credits.granted');
  t.deepEqual(
    granted.map((e) => e.data).sort((a, b) => (a.amount as number) - (b.amount as number)),
    [
      { amount: 2, reason: 'manual_adjustment', balance: 24 },
      { amount: 10, reason: 'purchase', balance: 33 },
    ],
  );
});

test('a balance below the cost reserves nothing', async (t) => {
  const id = await account(2);
  t.deepEqual(await ledger.reserve(call(id, 'y', 3)), { ok: false, balance: 2 });
  t.deepEqual((await ledger.balanceOf(id)).holds, {});
});

test('an event a crashed step left in the outbox is recorded by the next commit, once', async (t) => {
  const id = await account(100);
  // A step that fired an event and died before moving it out of the outbox.
  const stranded = {
    id: `evt_stranded_${id}`,
    event: 'credits.low',
    createdAt: new Date(),
    data: { balance: 20, threshold: 25, message: 'left behind' },
  };
  await collections(mongo.db).accounts.updateOne({ _id: id }, { $push: { outbox: stranded } });
  await ledger.reserve(call(id, 'x', 1));
  await ledger.commit(call(id, 'x', 1));
  t.deepEqual((await ledger.balanceOf(id)).outbox, []);
  const recorded = await collections(mongo.db).events.find({ _id: stranded.id }).toArray();
  t.is(recorded.length, 1);
  t.is(recorded[0]!.data.message, 'left behind');
});
