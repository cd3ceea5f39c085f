//! The building blocks of the component schemas (`api/docs/*-schemas.ts`): references, ids,
//! times, credentials and the fields several answers share.
import { MAX_MONTHLY_ALLOWANCE, ROLLOVERS } from '../../domain/plans/index.js';
import { Credits, Id, KeyPrefix, NullableTimestamp, Timestamp } from '../../lib/schema-types.js';

export type JsonSchema = Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// The blocks the domain's own answer schemas use too live in lib/, under names of their own.
export { Credits as credits, Id as id, KeyPrefix as keyPrefix, NullableTimestamp as nullableDateTime, Timestamp as dateTime };
export const credential = (prefix: 'utk' | 'uto', description: string) => ({
  type: 'string',
  pattern: `^${prefix}_[0-9A-Za-z]{40}$`,
  description,
  examples: [`${prefix}_8Fq2ZrW1tYk3Lm9Qp0Xn4Vb7Cs6Dh5Ja2Ge1Rf8W`],
});
/** A closed object whose every property is present (the routes always write each field). */
export const record = (description: string, properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  description,
  required: Object.keys(properties),
  properties,
});

/** The cursor of every paged list (usage, calls, events). */
export const nextCursor = { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page.' };

/** A page of a list of one component: its items and the cursor of the next page. */
export const page = (description: string, item: string): JsonSchema =>
  record(description, { items: { type: 'array', items: ref(item) }, nextCursor });

/** A plan's id, name and terms, described for where they are shown. */
export const planTerms = (allowance: string, rollover: string) => ({
  id: { type: 'string', examples: ['pro'] },
  name: { type: 'string', examples: ['Pro'] },
  monthlyAllowance: { type: 'integer', minimum: 0, maximum: MAX_MONTHLY_ALLOWANCE, description: allowance },
  rollover: { type: 'string', enum: [...ROLLOVERS], description: rollover },
});

const planSummary = {
  type: ['object', 'null'],
  description: 'The plan the account is on (null for an account opened before plans).',
  required: ['id', 'name', 'monthlyAllowance', 'rollover'],
  properties: planTerms(
    'Credits granted each period, on the anniversary.',
    '`none`: the unused part of an allowance lapses when the next period starts; `keep`: it stays until spent.',
  ),
};
export const planFields = {
  plan: planSummary,
  planSince: NullableTimestamp(
    'When the account joined its plan: each period starts on this day of the month (the last day of shorter months).',
  ),
  nextAllowance: {
    type: ['object', 'null'],
    description: 'The next monthly allowance; null when the plan gives none.',
    required: ['at', 'amount'],
    properties: {
      at: Timestamp('When it is granted (within minutes of this time).'),
      amount: { type: 'integer', minimum: 1, description: 'Credits.' },
    },
  },
};
