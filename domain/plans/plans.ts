//! Plans: the credits an account on one gets each month (its allowance) and whether the unused part
//! of it lapses at the next period (`rollover: none`) or stays (`keep`).
import type { Db } from 'mongodb';
import { collections, insertIfAbsent, viewOf } from '../../lib/mongo.js';
import type { PlanDoc } from '../account-documents.js';

/** The plan new accounts join when the operator names none; created (with no allowance) at start, editable. */
export const DEFAULT_PLAN_ID = 'free';
/** The largest monthly allowance a plan may carry. */
export const MAX_MONTHLY_ALLOWANCE = 10_000_000;
export const ROLLOVERS = ['none', 'keep'] as const;
export type Rollover = (typeof ROLLOVERS)[number];

export interface PlanFields {
  name: string;
  monthlyAllowance: number;
  rollover: Rollover;
}

export class PlanExistsError extends Error {
  override readonly name = 'PlanExistsError';
}

export const planView = (p: PlanDoc) => viewOf(p, ['name', 'monthlyAllowance', 'rollover', 'createdAt', 'updatedAt']);

export function createPlans(db: Db) {
  const { plans } = collections(db);
  return {
    /** Creates the default plan unless it exists (an operator's edits to it are kept). */
    async ensureDefault(now = new Date()): Promise<void> {
      await insertIfAbsent<PlanDoc>(plans, {
        _id: DEFAULT_PLAN_ID,
        name: 'Free',
        monthlyAllowance: 0,
        rollover: 'none',
        createdAt: now,
        updatedAt: now,
      });
    },

    async create(id: string, fields: PlanFields, now = new Date()): Promise<PlanDoc> {
      const doc: PlanDoc = { _id: id, ...fields, createdAt: now, updatedAt: now };
      if (!(await insertIfAbsent(plans, doc))) throw new PlanExistsError(`There is a plan ${id} already.`);
      return doc;
    },

    list: () => plans.find({}).sort({ createdAt: 1, _id: 1 }).toArray(),

    get: (id: string) => plans.findOne({ _id: id }),

    /** Changes a plan; accounts on it get the new allowance from their next period. Null when there is no such plan. */
    update: (id: string, fields: Partial<PlanFields>, now = new Date()) =>
      plans.findOneAndUpdate({ _id: id }, { $set: { ...fields, updatedAt: now } }, { returnDocument: 'after' }),
  };
}

export type Plans = ReturnType<typeof createPlans>;
