//! The monthly allowance on the time-skipping server, the scheduled `allowances` workflow passing its
//! own clock to the run: each anniversary grants the plan's allowance once (rollover `none` lapsing at
//! the next period's start), a catch-up after months away grants every missed period once whatever
//! overlaps or repeats, and a plan change applies from the next period (prorated now when asked).
import test from 'ava';
import { createCoreActivities } from '../../activities/core/index.js';
import { createAccounts } from '../../domain/accounts/accounts.js';
import { createAllowances, joinPlan } from '../../domain/plans/allowances.js';
import { createAuditLog, type AuditContext } from '../../domain/audit/index.js';
import { createLedger } from '../../domain/ledger/ledger.js';
import { periodStart } from '../../domain/plans/periods.js';
import { createPlans } from '../../domain/plans/plans.js';
import { randomBase62 } from '../../lib/ids.js';
import { collections } from '../../lib/mongo.js';
import { coreBedForFile, runOnce } from './support/core-bed.js';

const bed = coreBedForFile('allowance_tests');

const DAY = 24 * 3600 * 1000;
const HOUR = 3600 * 1000;
const OPERATOR: AuditContext = { actor: { type: 'operator', credential: 'ADMIN_TOKEN' }, ip: '203.0.113.7', userAgent: 'allowances-test' };
const runAllowances = () => runOnce(bed(), 'allowances', 'allowances');
/** In steps: the test server jumps years ahead when asked to sleep past 2^31 ms (24.8 days) at once. */
async function skipTo(at: number) {
  for (;;) {
    const left = at - ((await bed().env.currentTimeMs()) as number);
    if (left <= 0) return;
    await bed().env.sleep(Math.min(left, 10 * DAY));
  }
}
const now = async () => (await bed().env.currentTimeMs()) as number;

async function plan(monthlyAllowance: number, rollover: 'none' | 'keep') {
  const id = `p-${randomBase62(8).toLowerCase()}`;
  await createPlans(bed().mongo.db).create(id, { name: id, monthlyAllowance, rollover });
  return id;
}

async function openOnPlan(planId: string, at: number) {
  const { db } = bed().mongo;
  const id = (await createAccounts(db).open({ credits: 0, plan: joinPlan(planId, new Date(at)) })).account._id;
  await createAllowances(db).grantDue(id, at);
  return id;
}

const grantsOf = (accountId: string) => collections(bed().mongo.db).grants.find({ accountId }).sort({ createdAt: 1 }).toArray();
const balanceOf = (accountId: string) => createLedger(bed().mongo.db).balanceOf(accountId);

test.serial(
  'each anniversary grants the allowance once; with rollover none the unused part lapses when the next period starts',
  async (t) => {
    const { db } = bed().mongo;
    const anchor = await now();
    const id = await openOnPlan(await plan(300, 'none'), anchor);
    t.like(await balanceOf(id), { balance: 300 });
    const ledger = createLedger(db);
    const spend = { accountId: id, requestId: `${id}-r1`, tool: 'hash-text', cost: 100 };
    await ledger.reserve(spend, anchor);
    await ledger.commit(spend, anchor);

    const second = periodStart(new Date(anchor), 1).getTime();
    await skipTo(second - HOUR);
    await runAllowances();
    t.is((await grantsOf(id)).length, 1, 'nothing before the anniversary');
    t.like(await balanceOf(id), { balance: 200 });

    await skipTo(second + HOUR);
    await runAllowances();
    await runAllowances();
    const grants = await grantsOf(id);
    t.deepEqual(
      grants.map((g) => [g.reason, g.amount, g.periodStart?.getTime(), g.expiresAt?.getTime()]),
      [
        ['monthly_allowance', 300, anchor, second],
        ['monthly_allowance', 300, second, periodStart(new Date(anchor), 2).getTime()],
      ],
    );
    t.like(await balanceOf(id), { balance: 300, chargedBalance: 300 });
    const expired = await collections(db).ledger.find({ accountId: id, outcome: 'expired' }).toArray();
    t.deepEqual(
      expired.map((e) => [e.credits, e.grantId, e.at.getTime()]),
      [[200, grants[0]!._id, second]],
    );
    const granted = await collections(db).events.find({ accountId: id, event: 'credits.granted' }).toArray();
    t.deepEqual(
      granted.map((e) => e.data.reason),
      ['monthly_allowance', 'monthly_allowance'],
    );

    // The service granted both itself: each is in the audit log once, as the service's, and the chain verifies.
    const audit = createAuditLog(db);
    const entries = (await audit.list({ accountId: id, action: 'credits.granted', limit: 10 })).items;
    t.deepEqual(
      entries.map((e) => [e.target.id, e.changes.amount, e.changes.reason]),
      [
        [grants[1]!._id, [null, 300], [null, 'monthly_allowance']],
        [grants[0]!._id, [null, 300], [null, 'monthly_allowance']],
      ],
    );
    t.true(entries.every((e) => e.actor.type === 'service' && e.actor.credential === null && e.ip === null));
    t.true(entries[0]!.at.getTime() >= second + HOUR, "at the run's time, after the turn");
    t.like(await audit.verify(id), { ok: true });
    t.deepEqual((await collections(db).accounts.findOne({ _id: id }))!.auditDrafts, [], 'no draft left on the account');
  },
);

test.serial('after months away one run grants every missed period once, however runs overlap or repeat', async (t) => {
  const { db } = bed().mongo;
  const anchor = await now();
  const keep = await openOnPlan(await plan(100, 'keep'), anchor);
  const lapsing = await openOnPlan(await plan(50, 'none'), anchor);
  await skipTo(periodStart(new Date(anchor), 3).getTime() + 2 * DAY);

  // Two runs at once (an overlap, or a schedule action replayed) and the activity retried twice.
  const activities = createCoreActivities(db);
  const at = await now();
  await Promise.all([runAllowances(), runAllowances(), activities.runAllowances(at), activities.runAllowances(at)]);
  await runAllowances();

  const kept = await grantsOf(keep);
  t.deepEqual(
    kept.map((g) => g.periodStart!.getTime()).sort((a, b) => a - b),
    [0, 1, 2, 3].map((k) => periodStart(new Date(anchor), k).getTime()),
    'each period once',
  );
  t.true(kept.every((g) => g.expiresAt === null));
  t.like(await balanceOf(keep), { balance: 400, chargedBalance: 400 });
  t.is(await collections(db).events.countDocuments({ accountId: keep, event: 'credits.granted' }), 4);

  // rollover none: the periods that ended while away lapsed unused; only the current one is left.
  t.is((await grantsOf(lapsing)).length, 4);
  t.like(await balanceOf(lapsing), { balance: 50, chargedBalance: 50 });
  t.is(await collections(db).ledger.countDocuments({ accountId: lapsing, outcome: 'expired' }), 3);
  t.like((await collections(db).accounts.findOne({ _id: keep }))!.plan, {
    nextPeriod: 4,
    nextAllowanceAt: periodStart(new Date(anchor), 4),
  });
});

test.serial(
  "a plan change applies from the next period; with prorate the rest of this period's share of the difference comes now",
  async (t) => {
    const { db } = bed().mongo;
    const anchor = await now();
    const small = await plan(100, 'none');
    const big = await plan(400, 'keep');
    const plain = await openOnPlan(small, anchor);
    const prorated = await openOnPlan(small, anchor);
    const next = periodStart(new Date(anchor), 1).getTime();
    await skipTo(anchor + 10 * DAY);
    const at = await now();
    const allowances = createAllowances(db);
    await allowances.changePlan(plain, big, { prorate: false, now: at, audit: OPERATOR });
    await allowances.changePlan(prorated, big, { prorate: true, now: at, audit: OPERATOR });
    await allowances.changePlan(prorated, big, { prorate: true, now: at, audit: OPERATOR }); // a repeat changes nothing

    t.like(await balanceOf(plain), { balance: 100 });
    const share = Math.floor((300 * (next - at)) / (next - anchor));
    t.like(await balanceOf(prorated), { balance: 100 + share });
    const extra = (await grantsOf(prorated)).find((g) => g.idempotencyKey?.startsWith('proration:'));
    t.like(extra, { amount: share, reason: 'monthly_allowance', expiresAt: null });
    // The move and its prorated share are the mover's; the repeat moved nothing and has no entry.
    const entries = (await createAuditLog(db).list({ accountId: prorated, limit: 10 })).items.map((e) => [
      e.action,
      e.actor.type,
      e.target.id,
      e.changes,
    ]);
    t.deepEqual(entries.slice(0, 2), [
      ['account.plan_changed', 'operator', prorated, { plan: [small, big] }],
      ['credits.granted', 'operator', extra!._id, { amount: [null, share], reason: [null, 'monthly_allowance'], expiresAt: [null, null] }],
    ]);
    t.is(entries.filter(([action]) => action === 'account.plan_changed').length, 1);

    await skipTo(next + HOUR);
    await runAllowances();
    for (const id of [plain, prorated]) {
      const last = (await grantsOf(id)).at(-1)!;
      t.like(last, { amount: 400, expiresAt: null, periodStart: new Date(next) });
    }
    t.like(await balanceOf(plain), { balance: 400 }, "the first period's 100 lapsed, the new plan's 400 came");
    t.like(await balanceOf(prorated), { balance: 400 + share });
  },
);
