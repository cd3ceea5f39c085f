//! Credit packs: what the operator sells (credits for a price, optionally lapsing some days after
//! payment). A purchase copies the pack's terms when it is made, so changing a pack later changes
//! no purchase already made.
import { Type } from '@sinclair/typebox';
import type { Db } from 'mongodb';
import { collections, upsertReturningAfter, viewOf } from '../../lib/mongo.js';
import type { CreditPackDoc } from './documents.js';

/** Bounds of a pack (body schema and docs). */
export const PACK_LIMITS = {
  credits: 10_000_000,
  /** Minor units: Stripe's largest amount of a Checkout Session is 99,999,999. */
  amount: 99_999_999,
  expiresInDays: 3650,
} as const;

/** A price's currency, as packs, purchases and the answers about them write it. */
export const Currency = Type.String({ pattern: '^[a-z]{3}$', description: 'ISO 4217, lowercase.', examples: ['usd'] });
/** An amount of money in its currency's minor unit (cents for usd). */
export const MinorUnits = (description: string) => Type.Integer({ minimum: 0, description, examples: [1500] });

/** A pack's id, chosen by the operator: lowercase letters, digits, `-` and `_`. */
export const PACK_ID_PATTERN = '^[a-z0-9][a-z0-9_-]{0,63}$';

export interface PackFields {
  name: string;
  credits: number;
  price: { amount: number; currency: string };
  expiresInDays?: number | null;
  active?: boolean;
}

export const packView = (p: CreditPackDoc) => viewOf(p, ['name', 'credits', 'price', 'expiresInDays', 'active', 'createdAt', 'updatedAt']);

export function createPacks(db: Db) {
  const { creditPacks } = collections(db);
  return {
    /** Creates or replaces the pack `id` (active unless said otherwise, never lapsing unless `expiresInDays`). */
    async put(id: string, fields: PackFields, now = new Date()): Promise<CreditPackDoc> {
      const set = {
        name: fields.name,
        credits: fields.credits,
        price: { amount: fields.price.amount, currency: fields.price.currency.toLowerCase() },
        expiresInDays: fields.expiresInDays ?? null,
        active: fields.active ?? true,
        updatedAt: now,
      };
      return upsertReturningAfter(creditPacks, { _id: id }, { $set: set, $setOnInsert: { createdAt: now } });
    },

    /** Every pack (the operator's list), or only the active ones (what accounts may buy). */
    list: (options: { activeOnly: boolean }) =>
      creditPacks
        .find(options.activeOnly ? { active: true } : {})
        .sort({ 'price.amount': 1, _id: 1 })
        .toArray(),

    /** A pack, active or not. */
    get: (id: string) => creditPacks.findOne({ _id: id }),

    /** The pack an account may buy now: active; null otherwise. */
    active: (id: string) => creditPacks.findOne({ _id: id, active: true }),
  };
}

export type Packs = ReturnType<typeof createPacks>;
