//! The operator's account routes' request bodies (api/routes/admin.ts): validation, OpenAPI and types in one.
import { type Static, Type } from '@sinclair/typebox';
import { GRANT_REASONS } from '../../domain/ledger/index.js';
import { ClosedObject, DateTime, StringEnum } from '../../lib/schema-types.js';
import { label } from './labels.js';
import { planId } from './plans.js';

export const CreateAccountBody = ClosedObject({
  name: Type.Optional(label),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'Contact address of the account owner.' })),
  credits: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1_000_000_000,
      description: 'The one-off welcome grant, never expiring; FREE_CREDITS when omitted.',
    }),
  ),
  plan: Type.Optional(planId('The plan the account joins (`free` when omitted). Its first allowance is granted at once.')),
  planStartsAt: Type.Optional(
    DateTime(
      'When the account joined the plan, within the last 31 days (now when omitted): its anniversary. Periods since then are granted at once.',
    ),
  ),
});
export type CreateAccountBody = Static<typeof CreateAccountBody>;

export const GrantCreditsBody = ClosedObject({
  amount: Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: 'Credits to add.' }),
  reason: StringEnum(GRANT_REASONS, { description: 'Why the credits are added.' }),
  expiresAt: Type.Optional(DateTime('When what is left of the grant lapses (in the future). Never when omitted.')),
  idempotencyKey: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description:
        'Your payment id: the same key again grants nothing new and answers the first grant; with another amount, reason or expiry it is refused (409).',
    }),
  ),
});
export type GrantCreditsBody = Static<typeof GrantCreditsBody>;

export const ChangePlanBody = ClosedObject({
  plan: planId('The plan the account moves to, from its next period.'),
  prorate: Type.Optional(
    Type.Boolean({
      default: false,
      description: "Also grant now the rest of the current period's share of the difference, when the new plan's allowance is larger.",
    }),
  ),
});
export type ChangePlanBody = Static<typeof ChangePlanBody>;
