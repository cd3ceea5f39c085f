//! Grants on the real database: spent earliest-expiry first, lapsing at their expiry with the
//! balance events that follow, refunds to the grants the credits came from (or lapsing with one that
//! expired meanwhile), a key granting once, and accounts from before grants were records. Serial:
//! an expiry pass is for every account of the database, so it must not run under another test's calls.
import test from 'ava';
import { MongoClient } from 'mongodb';
import { connectMongo, collections, type Mongo } from '../../lib/mongo.js';
import { createLedger, welcomeGrantId, type Ledger } from '../../domain/ledger/ledger.js';
import { createAccounts } from '../../domain/accounts/accounts.js';
import { createGrants, type Grants } from '../../domain/ledger/grants.js';
import { newId } from '../../lib/ids.js';

let mongo: Mongo;
let ledger: Ledger;
let grants: Grants;

test.before(async () => {
  if (!process.env.MONGODB_URL) throw new Error('MONGODB_URL is not set: run through `npm test`');
  mongo = await connectMongo(process.env.MONGODB_URL.replace(/\/[^/]*$/, '/grant_tests'));
  ledger = createLedger(mongo.db);
  grants = createGrants(mongo.db);
});
test.after.always(() => mongo?.close());

const HOUR = 3600_000;
const T0 = Date.parse('2026-03-01T00:00:00Z');
const account = async (credits: number) => (await createAccounts(mongo.db).open({ credits })).account._id;
const call = (accountId: string, i: number | string, cost = 1) => ({ accountId, requestId: `${accountId}-r${i}`, tool: 'hash-text', cost });
const eventsOf = (accountId: string, event: string) => collections(mongo.db).events.find({ accountId, event }).toArray();
const lotsOf = async (accountId: string) => (await ledger.balanceOf(accountId)).lots!;

test.serial('a call spends the grant that expires first, never-expiring credits last', async (t) => {
  const id = await account(100);
  const late = await grants.grant({ accountId: id, amount: 10, reason: 'purchase', expiresAt: new Date(T0 + 48 * HOUR) }, T0);
  const soon = await grants.grant({ accountId: id, amount: 5, reason: 'monthly_allowance', expiresAt: new Date(T0 + 24 * HOUR) }, T0);
  t.is(soon.balance, 115);
  await ledger.reserve(call(id, 1, 7), T0);
  let lots = await lotsOf(id);
  t.is(lots[soon.grant._id]!.remaining, 0);
  t.is(lots[late.grant._id]!.remaining, 8);
  t.is(lots[welcomeGrantId(id)]!.remaining, 100);
  t.deepEqual((await ledger.balanceOf(id)).holds[`${id}-r1`]!.from, { [soon.grant._id]: 5, [late.grant._id]: 2 });
  await ledger.reserve(call(id, 2, 10), T0);
  lots = await lotsOf(id);
  t.is(lots[late.grant._id]!.remaining, 0);
  t.is(lots[welcomeGrantId(id)]!.remaining, 98);
  t.like(await ledger.balanceOf(id), { balance: 98, chargedBalance: 115 });
});

test.serial(
  'at its expiry what is left of a grant leaves the balance as an expiry in the usage ledger; credits.low fires when that crosses 25, credits.exhausted at zero',
  async (t) => {
    const id = await account(0);
    const g = await grants.grant({ accountId: id, amount: 40, reason: 'monthly_allowance', expiresAt: new Date(T0 + HOUR) }, T0);
    await ledger.reserve(call(id, 1, 10), T0);
    await ledger.commit(call(id, 1, 10), T0);
    t.like(await ledger.balanceOf(id), { balance: 30, chargedBalance: 30 });
    t.is((await eventsOf(id, 'credits.low')).length, 0);

    t.deepEqual(await grants.expireDue(T0 + HOUR - 1), { expired: 0, more: false }, 'not before its time');
    await grants.expireDue(T0 + HOUR);
    t.like(await ledger.balanceOf(id), { balance: 0, chargedBalance: 0 });
    const entry = await collections(mongo.db).ledger.findOne({ _id: `exp_${g.grant._id}` });
    t.like(entry, { accountId: id, outcome: 'expired', credits: 30, grantId: g.grant._id, tool: null });
    t.is(entry!.at.getTime(), T0 + HOUR);
    const low = await eventsOf(id, 'credits.low');
    t.is(low.length, 1);
    t.is((await eventsOf(id, 'credits.exhausted')).length, 1);
    t.like((await grants.list(id, { limit: 10 })).items[0], { id: g.grant._id, amount: 40, remaining: 0, expired: 30 });

    await grants.expireDue(T0 + 2 * HOUR);
    t.is(await collections(mongo.db).ledger.countDocuments({ accountId: id, outcome: 'expired' }), 1, 'a grant lapses once');
    t.is((await ledger.reserve(call(id, 2, 1), T0 + 2 * HOUR)).ok, false);
  },
);

test.serial('a reserve never spends a grant past its expiry, even before the scheduled run got to it', async (t) => {
  const id = await account(3);
  const g = await grants.grant({ accountId: id, amount: 50, reason: 'purchase', expiresAt: new Date(T0 + HOUR) }, T0);
  const result = await ledger.reserve(call(id, 1, 5), T0 + HOUR);
  t.deepEqual(result, { ok: false, balance: 3 });
  t.like((await lotsOf(id))[g.grant._id], { remaining: 0 });
  t.is((await collections(mongo.db).ledger.findOne({ _id: `exp_${g.grant._id}` }))?.credits, 50);
});

test.serial(
  'a reserve of an account whose lots this ledger saw is one write; a grant applied elsewhere since is still spent in its order',
  async (t) => {
    // A ledger on a client of its own, counting the commands it sends.
    const client = new MongoClient(process.env.MONGODB_URL!, { monitorCommands: true });
    t.teardown(() => client.close());
    const commands: string[] = [];
    client.on('commandStarted', (e) => commands.push(e.commandName));
    const watched = createLedger(client.db(mongo.db.databaseName));
    const id = await account(100);

    await watched.reserve(call(id, 1, 2), T0);
    t.deepEqual(commands.splice(0), ['find', 'findAndModify'], 'the first reserve reads the account, then updates it');
    t.like(await watched.reserve(call(id, 2, 2), T0), { ok: true, balance: 96 });
    t.deepEqual(commands.splice(0), ['findAndModify'], 'the next one only updates it');

    const soon = await grants.grant({ accountId: id, amount: 5, reason: 'purchase', expiresAt: new Date(T0 + 24 * HOUR) }, T0);
    t.like(await watched.reserve(call(id, 3, 3), T0), { ok: true, balance: 98 });
    t.is(commands.filter((c) => c === 'find').length, 1, 'a grant came since: it reads again');
    t.like(
      (await ledger.balanceOf(id)).holds[call(id, 3).requestId],
      { from: { [soon.grant._id]: 3 } },
      'and spends the grant that expires first',
    );

    // The soon grant has 2 left: a cost of 3 spreads over two grants, which is chosen on a fresh read.
    commands.splice(0);
    await watched.reserve(call(id, 4, 3), T0);
    t.deepEqual(commands, ['find', 'findAndModify']);
    t.like((await ledger.balanceOf(id)).holds[call(id, 4).requestId], { from: { [soon.grant._id]: 2, [welcomeGrantId(id)]: 1 } });
    // Now that grant is empty and comes first: one write again, from the never-expiring credits.
    commands.splice(0);
    await watched.reserve(call(id, 5, 1), T0);
    t.deepEqual(commands, ['findAndModify']);
    t.like((await ledger.balanceOf(id)).holds[call(id, 5).requestId], { from: { [welcomeGrantId(id)]: 1 } });
  },
);

test.serial(
  'a refund gives the credits back to the grants they came from; those of a grant that expired meanwhile lapse, recorded as an expiry',
  async (t) => {
    const id = await account(10);
    const g = await grants.grant({ accountId: id, amount: 6, reason: 'monthly_allowance', expiresAt: new Date(T0 + HOUR) }, T0);
    await ledger.reserve(call(id, 'live', 2), T0);
    t.like(await ledger.refund(call(id, 'live', 2), T0), { outcome: 'refunded', balance: 16 });
    t.is((await lotsOf(id))[g.grant._id]!.remaining, 6, 'back where it came from');

    await ledger.reserve(call(id, 'late', 8), T0); // 6 from the allowance, 2 from the welcome grant
    t.like(await ledger.balanceOf(id), { balance: 8, chargedBalance: 16 });
    await grants.expireDue(T0 + HOUR); // nothing left of it but what the call holds
    t.like(await ledger.balanceOf(id), { balance: 8, chargedBalance: 16 });
    t.like(await ledger.refund(call(id, 'late', 8), T0 + 2 * HOUR), { outcome: 'refunded', balance: 10 });
    t.like(await ledger.balanceOf(id), { balance: 10, chargedBalance: 10, holds: {} });
    const lapsed = await collections(mongo.db).ledger.findOne({ _id: `exp_${g.grant._id}_${id}-rlate` });
    t.like(lapsed, { outcome: 'expired', credits: 6, grantId: g.grant._id });
    t.is((await ledger.refund(call(id, 'late', 8), T0 + 3 * HOUR)).balance, 10, 'a repeat changes nothing');
    t.is(await collections(mongo.db).ledger.countDocuments({ accountId: id, outcome: 'expired' }), 1);
  },
);

test.serial('the same idempotency key grants once and answers the first grant', async (t) => {
  const id = await account(0);
  const first = await grants.grant({ accountId: id, amount: 500, reason: 'purchase', idempotencyKey: 'pi_123' }, T0);
  const again = await grants.grant({ accountId: id, amount: 500, reason: 'purchase', idempotencyKey: 'pi_123' }, T0 + 1000);
  t.false(first.replayed);
  t.true(again.replayed);
  t.is(again.grant._id, first.grant._id);
  t.is(again.balance, 500);
  const concurrent = await Promise.all(
    Array.from({ length: 10 }, () => grants.grant({ accountId: id, amount: 7, reason: 'purchase', idempotencyKey: 'pi_456' }, T0)),
  );
  t.is(new Set(concurrent.map((c) => c.grant._id)).size, 1);
  t.like(await ledger.balanceOf(id), { balance: 507, chargedBalance: 507 });
  t.is((await eventsOf(id, 'credits.granted')).length, 2);
});

test.serial('a grant whose record was written but whose account update was cut short is completed by its repeat, once', async (t) => {
  const id = await account(0);
  const key = 'pi_torn';
  await grants.grant({ accountId: id, amount: 9, reason: 'purchase', idempotencyKey: key }, T0);
  // What a crash right after the record leaves: the record, not applied, and nothing in the account.
  const { grants: records, accounts } = collections(mongo.db);
  const record = (await grants.byKey(id, key))!;
  await records.updateOne({ _id: record._id }, { $set: { appliedAt: null, balanceAfter: null } });
  await accounts.updateOne({ _id: id }, { $unset: { [`lots.${record._id}`]: '' }, $inc: { balance: -9, chargedBalance: -9 } });
  const repeat = await grants.grant({ accountId: id, amount: 9, reason: 'purchase', idempotencyKey: key }, T0);
  t.is(repeat.balance, 9);
  t.is((await grants.grant({ accountId: id, amount: 9, reason: 'purchase', idempotencyKey: key }, T0)).balance, 9);
  t.like(await ledger.balanceOf(id), { balance: 9, chargedBalance: 9 });
});

test.serial('concurrent calls across grants of different expiries are exact', async (t) => {
  const id = await account(20);
  await grants.grant({ accountId: id, amount: 15, reason: 'purchase', expiresAt: new Date(T0 + HOUR) }, T0);
  await grants.grant({ accountId: id, amount: 15, reason: 'purchase', expiresAt: new Date(T0 + 2 * HOUR) }, T0);
  const reserved = await Promise.all(Array.from({ length: 60 }, (_, i) => ledger.reserve(call(id, i, 1), T0)));
  t.is(reserved.filter((r) => r.ok).length, 50);
  const doc = await ledger.balanceOf(id);
  t.is(doc.balance, 0);
  t.true(Object.values(doc.lots!).every((l) => l.remaining === 0));
  const won = reserved.map((r, i) => (r.ok ? i : -1)).filter((i) => i >= 0);
  await Promise.all(won.map((i, k) => (k % 2 ? ledger.commit(call(id, i, 1), T0) : ledger.refund(call(id, i, 1), T0))));
  t.like(await ledger.balanceOf(id), { balance: 25, chargedBalance: 25, holds: {} });
});

test.serial(
  'an account from before grants were records keeps its balance as one never-expiring grant, its old holds included',
  async (t) => {
    const id = newId('acc');
    const { accounts } = collections(mongo.db);
    await accounts.insertOne({
      _id: id,
      name: null,
      email: null,
      balance: 17,
      chargedBalance: 20,
      lowArmed: true,
      exhaustedArmed: true,
      outbox: [],
      createdAt: new Date(),
      holds: { [`${id}-rold`]: { cost: 3, tool: 'hash-text', at: new Date() } },
    });
    t.true((await ledger.reserve(call(id, 'new', 5), T0)).ok);
    t.like(await ledger.balanceOf(id), { balance: 12, chargedBalance: 20 });
    await ledger.refund(call(id, 'old', 3), T0);
    await ledger.commit(call(id, 'new', 5), T0);
    const doc = await ledger.balanceOf(id);
    t.like(doc, { balance: 15, chargedBalance: 15, holds: {} });
    t.is(doc.lots![welcomeGrantId(id)]!.remaining, 15);
  },
);
