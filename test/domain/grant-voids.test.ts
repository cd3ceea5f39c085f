//! The ledger's side of billing on the real database: voids of a purchase's grant (refund, dispute)
//! taken only from what is left of it and applied once however many ask at once, a dispute's part
//! given back, and auto-recharge decided on the commit's own update: no database operation more for
//! a call that crosses no threshold.
import test from 'ava';
import { MongoClient } from 'mongodb';
import { connectMongo, collections, type Mongo } from '../../lib/mongo.js';
import { createLedger, type Ledger } from '../../domain/ledger/ledger.js';
import { createAccounts } from '../../domain/accounts/accounts.js';
import { createGrants, type Grants } from '../../domain/ledger/grants.js';

let mongo: Mongo;
let ledger: Ledger;
let grants: Grants;

test.before(async () => {
  if (!process.env.MONGODB_URL) throw new Error('MONGODB_URL is not set: run through `npm test`');
  mongo = await connectMongo(process.env.MONGODB_URL.replace(/\/[^/]*$/, '/grant_void_tests'));
  ledger = createLedger(mongo.db);
  grants = createGrants(mongo.db);
});
test.after.always(() => mongo?.close());

const account = async (credits: number) => (await createAccounts(mongo.db).open({ credits })).account._id;
const call = (accountId: string, i: number | string, cost = 1) => ({ accountId, requestId: `${accountId}-r${i}`, tool: 'hash-text', cost });
const eventsOf = (accountId: string, event: string) => collections(mongo.db).events.find({ accountId, event }).toArray();

async function purchased(credits: number) {
  const id = await account(0);
  const { grant } = await grants.grant({ accountId: id, amount: credits, reason: 'purchase', idempotencyKey: `checkout:cs_${id}` });
  return { id, grantId: grant._id };
}

test('a refund voids its share once however many ask at once, and never more than is left of the grant', async (t) => {
  const { id, grantId } = await purchased(100);
  await Promise.all(Array.from({ length: 70 }, (_, i) => ledger.reserve(call(id, i)).then(() => ledger.commit(call(id, i)))));
  t.is((await ledger.balanceOf(id)).balance, 30);
  const target = { accountId: id, grantId, purchaseId: 'pur_x', kind: 'refund' as const };
  const first = await Promise.all(Array.from({ length: 8 }, () => ledger.voidLot({ ...target, upTo: 20 })));
  t.is(
    first.reduce((n, o) => n + o.voided, 0),
    20,
    'the 20 due, once',
  );
  const more = await Promise.all(Array.from({ length: 8 }, () => ledger.voidLot({ ...target, upTo: 100 })));
  t.is(
    more.reduce((n, o) => n + o.voided, 0),
    10,
    'of the 80 more due, the 10 left',
  );
  const doc = await ledger.balanceOf(id);
  t.like(doc, { balance: 0, chargedBalance: 0 });
  t.like(doc.lots![grantId], { remaining: 0, voidedByRefund: 30 });
  t.deepEqual(
    (await eventsOf(id, 'credits.voided')).map((e) => e.data.amount as number).sort((a, b) => a - b),
    [10, 20],
  );
  t.is((await eventsOf(id, 'credits.exhausted')).length, 1, 'a void that empties the balance says so, like a charge');
});

test("a dispute takes what is left and a won dispute gives it back once; a refund's share then comes from it", async (t) => {
  const { id, grantId } = await purchased(50);
  await ledger.reserve(call(id, 1, 10));
  await ledger.commit(call(id, 1, 10));
  const target = { accountId: id, grantId, purchaseId: 'pur_y' };
  t.like(await ledger.voidLot({ ...target, kind: 'dispute', upTo: Number.POSITIVE_INFINITY }), { voided: 40, balance: 0 });
  const restored = await Promise.all(Array.from({ length: 5 }, () => ledger.restoreLot(target)));
  t.is(restored.filter((r) => r.voided === -40).length, 1);
  t.is((await ledger.balanceOf(id)).balance, 40);
  t.like(await ledger.voidLot({ ...target, kind: 'refund', upTo: 25 }), { voided: 25, balance: 15 });
  t.like((await ledger.balanceOf(id)).lots![grantId], { remaining: 15, voidedByRefund: 25, voidedByDispute: 0 });
  const granted = (await eventsOf(id, 'credits.granted')).map((e) => e.data);
  t.deepEqual(granted.at(-1), { amount: 40, reason: 'purchase', balance: 40 });
});

test("auto-recharge is decided on the commit's own update: a commit that crosses nothing sends what it sends without it", async (t) => {
  const client = new MongoClient(process.env.MONGODB_URL!.replace(/\/[^/]*$/, '/grant_void_tests'), { monitorCommands: true });
  t.teardown(() => client.close());
  const commands: string[] = [];
  client.on('commandStarted', (e) => commands.push(e.commandName));
  const due: string[] = [];
  const watched = createLedger(client.db(mongo.db.databaseName), undefined, { onRechargeDue: (accountId) => due.push(accountId) });
  const plain = await account(100);
  const recharging = await account(100);
  await collections(mongo.db).accounts.updateOne({ _id: recharging }, { $set: { rechargeBelow: 50, rechargeArmed: true } });

  const commitCommands = async (id: string, i: number) => {
    await watched.reserve(call(id, i, 10));
    commands.splice(0);
    await watched.commit(call(id, i, 10));
    return commands.splice(0);
  };
  const without = await commitCommands(plain, 1);
  const withSettings = await commitCommands(recharging, 1);
  t.deepEqual(withSettings, without, 'the same commands with auto-recharge on');
  t.deepEqual(due, []);
  // 100 -> 40 crosses 50: the commit that crosses hands the account on, with no command more.
  for (let i = 2; i <= 5; i++) await commitCommands(recharging, i);
  t.deepEqual(await commitCommands(recharging, 6), without, 'the crossing commit too');
  t.deepEqual(due, [recharging]);
});
