//! The monthly allowance, run by the service: an account on a plan gets the plan's allowance once per
//! period, on its anniversary. The account's document says which period is next (`plan.nextPeriod`)
//! and when it is due; its grant is keyed by the period's start, and only then does the pointer move
//! on, by an update guarded by the period it read. So a retried activity, a replayed or overlapping
//! run, and a catch-up after days away each grant every period once.
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import type { AccountPlan, PlanDoc } from '../account-documents.js';
import type { EventSink } from '../events/index.js';
import { createGrants } from '../ledger/index.js';
import { createPlans } from './plans.js';
import { periodStart } from './periods.js';
import { accountDraft, createAuditLog, type AuditContext } from '../audit/index.js';

/** Accounts one pass handles before it reports that more are due. */
const ALLOWANCE_BATCH = 500;
/** Accounts granted at once within a pass. */
const CONCURRENCY = 8;

/** An account joining a plan at `anchor`: its first period starts then, and is due then. */
export function joinPlan(planId: string, anchor: Date): AccountPlan {
  return { id: planId, anchor, nextPeriod: 0, nextAllowanceAt: anchor, changes: 0 };
}

export interface AllowanceRun {
  /** Accounts that had a period due. */
  accounts: number;
  /** Allowances granted (repeats of a period already granted not counted). */
  granted: number;
  /** Grants whose remainder lapsed. */
  expired: number;
  /** True when the pass stopped at its batch size: run it again. */
  more: boolean;
}

export function createAllowances(db: Db, onEvent?: EventSink) {
  const { accounts } = collections(db);
  const plans = createPlans(db);
  const grants = createGrants(db, onEvent);
  const auditLog = createAuditLog(db);

  /** Grants period `index`'s allowance (keyed by its start). True when this call granted it. */
  async function grantPeriod(accountId: string, plan: PlanDoc, anchor: Date, index: number, now: number): Promise<boolean> {
    if (plan.monthlyAllowance <= 0) return false;
    const start = periodStart(anchor, index);
    const { replayed } = await grants.grant(
      {
        accountId,
        amount: plan.monthlyAllowance,
        reason: 'monthly_allowance',
        // rollover none: the unused part lapses when the next period starts.
        expiresAt: plan.rollover === 'none' ? periodStart(anchor, index + 1) : null,
        idempotencyKey: `allowance:${start.toISOString()}`,
        periodStart: start,
      },
      now,
    );
    return !replayed;
  }

  /** Grants every period of the account that is due at `now`, oldest first, each once. */
  async function grantDue(accountId: string, now: number): Promise<number> {
    let granted = 0;
    for (;;) {
      const doc = await accounts.findOne({ _id: accountId }, { projection: { plan: 1 } });
      const p = doc?.plan;
      if (!p || p.nextAllowanceAt.getTime() > now) return granted;
      const plan = await plans.get(p.id);
      if (plan && (await grantPeriod(accountId, plan, p.anchor, p.nextPeriod, now))) granted++;
      await accounts.updateOne(
        { _id: accountId, 'plan.nextPeriod': p.nextPeriod },
        { $set: { 'plan.nextPeriod': p.nextPeriod + 1, 'plan.nextAllowanceAt': periodStart(p.anchor, p.nextPeriod + 1) } },
      );
    }
  }

  return {
    grantDue,

    /**
     * One pass of the scheduled run: every account whose period is due gets its allowance(s), then
     * every grant past its expiry lapses. Bounded: `more` says another pass is needed.
     */
    async run(now: number, limit = ALLOWANCE_BATCH): Promise<AllowanceRun> {
      const due = await accounts
        .find({ 'plan.nextAllowanceAt': { $lte: new Date(now) } }, { projection: { _id: 1 } })
        .limit(limit + 1)
        .toArray();
      const batch = due.slice(0, limit);
      let granted = 0;
      for (let i = 0; i < batch.length; i += CONCURRENCY) {
        const counts = await Promise.all(batch.slice(i, i + CONCURRENCY).map((a) => grantDue(a._id, now)));
        granted += counts.reduce((a, b) => a + b, 0);
      }
      const expiry = await grants.expireDue(now);
      return { accounts: batch.length, granted, expired: expiry.expired, more: due.length > limit || expiry.more };
    },

    /**
     * Moves the account to another plan from its next period on: what is due under the old plan is
     * granted first. With `prorate`, the rest of the current period's share of the difference in
     * allowance (when the new plan gives more) is granted now, keyed by the change, expiring as the
     * new plan's allowance does. Moving to the plan it is on changes nothing. `audit`: who moves it;
     * the entry (`account.plan_changed`) is written by the update that moves it, the allowances
     * granted on the way are the service's own, a prorated share is the mover's.
     */
    async changePlan(accountId: string, planId: string, options: { prorate: boolean; now: number; audit: AuditContext }): Promise<void> {
      const { now, audit } = options;
      const entry = (from: string | null) => ({
        $push: { auditDrafts: accountDraft(audit, accountId, 'account.plan_changed', { plan: [from, planId] }, new Date(now)) },
      });
      const target = await plans.get(planId);
      if (!target) throw new Error(`no plan ${planId}`);
      for (;;) {
        await grantDue(accountId, now);
        const doc = await accounts.findOne({ _id: accountId }, { projection: { plan: 1 } });
        if (!doc) throw new Error(`no account ${accountId}`);
        const p = doc.plan;
        if (!p) {
          // An account from before plans: it joins now, like a new account.
          const joined = await accounts.updateOne(
            { _id: accountId, plan: { $exists: false } },
            { $set: { plan: { ...joinPlan(planId, new Date(now)), changes: 1 } }, ...entry(null) },
          );
          if (joined.modifiedCount === 1) {
            await auditLog.flush('account', accountId);
            await grantDue(accountId, now);
            return;
          }
          continue;
        }
        if (p.id === planId) return;
        if (options.prorate && p.nextPeriod > 0) {
          const old = await plans.get(p.id);
          const start = periodStart(p.anchor, p.nextPeriod - 1).getTime();
          const end = p.nextAllowanceAt.getTime();
          const amount = Math.floor((Math.max(0, target.monthlyAllowance - (old?.monthlyAllowance ?? 0)) * (end - now)) / (end - start));
          // Granted before the switch and keyed by it: a retry after a crash in between grants it once.
          if (amount > 0) {
            await grants.grant(
              {
                accountId,
                amount,
                reason: 'monthly_allowance',
                expiresAt: target.rollover === 'none' ? new Date(end) : null,
                idempotencyKey: `proration:${p.changes + 1}`,
                audit,
              },
              now,
            );
          }
        }
        const switched = await accounts.updateOne(
          { _id: accountId, 'plan.changes': p.changes, 'plan.nextPeriod': p.nextPeriod },
          { $set: { 'plan.id': planId }, $inc: { 'plan.changes': 1 }, ...entry(p.id) },
        );
        if (switched.modifiedCount === 1) {
          await auditLog.flush('account', accountId);
          return;
        }
      }
    },

    /** The next allowance of an account: when and how much (null when its plan gives none). */
    async next(plan: AccountPlan | undefined): Promise<{ plan: PlanDoc | null; next: { at: Date; amount: number } | null }> {
      const doc = plan ? await plans.get(plan.id) : null;
      return {
        plan: doc,
        next: plan && doc && doc.monthlyAllowance > 0 ? { at: plan.nextAllowanceAt, amount: doc.monthlyAllowance } : null,
      };
    },
  };
}

export type Allowances = ReturnType<typeof createAllowances>;
