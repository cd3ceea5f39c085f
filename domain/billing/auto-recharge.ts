//! Auto-recharge's settings: a pack bought with the card saved at checkout when a charged call takes
//! the balance below a threshold, at most `monthlyLimit` times a calendar month. The settings live
//! with the account's billing; the threshold and its latch also in the account's document, where
//! the commit of a call reads them back for free (domain/ledger/settlement.ts).
import { type Static, Type } from '@sinclair/typebox';
import type { Db } from 'mongodb';
import { collections, isDuplicateKey } from '../../lib/mongo.js';
import { Id, Nullable, StringEnum, Timestamp } from '../../lib/schema-types.js';
import type { AutoRechargeState, BillingAccountDoc } from './documents.js';
import { spendMonth } from '../ledger/index.js';
import { auditDraft, changesOf, createAuditLog, type AuditContext } from '../audit/index.js';
import type { Packs } from './packs.js';

/** Bounds of the settings (body schema and docs). */
export const AUTO_RECHARGE_LIMITS = { threshold: 1_000_000, monthlyLimit: 100 } as const;

/** The settings and how they stand, as the owner sees them: their type, and the `AutoRecharge` schema of the OpenAPI document. */
export const AutoRechargeView = Type.Object(
  {
    enabled: Type.Boolean(),
    packId: Nullable(Type.String({ description: 'The pack each recharge buys.' })),
    threshold: Nullable(
      Type.Integer({
        minimum: 1,
        maximum: AUTO_RECHARGE_LIMITS.threshold,
        description: 'A charged call that takes the balance below this starts a recharge.',
      }),
    ),
    monthlyLimit: Nullable(
      Type.Integer({ minimum: 1, maximum: AUTO_RECHARGE_LIMITS.monthlyLimit, description: 'Recharges a calendar month (UTC) may start.' }),
    ),
    paymentMethod: Nullable(
      Type.Object(
        { brand: Type.String({ examples: ['visa'] }), last4: Type.String({ pattern: '^[0-9]{4}$', examples: ['4242'] }) },
        { description: 'The card saved at checkout (`saveCard: true`); null: none yet.' },
      ),
    ),
    rechargesThisMonth: Type.Integer({ minimum: 0, description: 'Recharges started this calendar month (UTC), failed ones included.' }),
    consecutiveFailures: Type.Integer({ minimum: 0, description: 'Failed recharges in a row; three turn auto-recharge off.' }),
    disabledReason: Nullable(Type.String({ description: 'Why the service turned it off (failures in a row); null otherwise.' })),
    lastRecharge: Nullable(
      Type.Object(
        {
          id: Id('rch', 'Recharge id.'),
          paymentIntentId: Nullable(Type.String({ description: "Stripe's PaymentIntent." })),
          status: StringEnum(['pending', 'succeeded', 'failed']),
          reason: Nullable(Type.String({ description: "A failure's reason (Stripe's code)." })),
          credits: Type.Integer({ minimum: 1 }),
          at: Timestamp('When it settled (or started, while pending).'),
        },
        { description: 'The latest recharge; null before the first.' },
      ),
    ),
  },
  { description: 'Automatic recharges and how they stand.' },
);
export type AutoRechargeView = Static<typeof AutoRechargeView>;

/** Failures in a row that turn auto-recharge off. */
export const MAX_CONSECUTIVE_FAILURES = 3;

export interface AutoRechargeInput {
  enabled: boolean;
  packId: string;
  threshold: number;
  monthlyLimit: number;
}

/** A field the body got wrong beyond its schema, as validation_failed names it. */
export interface SettingProblem {
  field: string;
  message: string;
}

const SETTINGS = ['enabled', 'packId', 'threshold', 'monthlyLimit'] as const;

export function createAutoRecharge(db: Db, packs: Packs) {
  const { billingAccounts, accounts, recharges } = collections(db);
  const auditLog = createAuditLog(db);

  /** The settings and how they stand (GET /api/v1/account/auto-recharge). */
  async function view(accountId: string, now = Date.now()): Promise<AutoRechargeView> {
    const billing = await billingAccounts.findOne({ _id: accountId });
    const state = billing?.autoRecharge;
    const last = state?.lastRechargeId ? await recharges.findOne({ _id: state.lastRechargeId }) : null;
    return {
      enabled: state?.enabled ?? false,
      packId: state?.packId ?? null,
      threshold: state?.threshold ?? null,
      monthlyLimit: state?.monthlyLimit ?? null,
      paymentMethod: billing?.paymentMethod ? { brand: billing.paymentMethod.brand, last4: billing.paymentMethod.last4 } : null,
      rechargesThisMonth: state && state.month === spendMonth(now) ? state.count : 0,
      consecutiveFailures: state?.consecutiveFailures ?? 0,
      disabledReason: state?.disabledReason ?? null,
      lastRecharge: last
        ? {
            id: last._id,
            paymentIntentId: last.paymentIntentId,
            status: last.status,
            reason: last.failureReason,
            credits: last.credits,
            at: last.settledAt ?? last.createdAt,
          }
        : null,
    };
  }

  /** What is wrong with `input` beyond the schema: a pack not for sale, turning it on without a saved card. */
  async function problems(accountId: string, input: AutoRechargeInput): Promise<SettingProblem[]> {
    const found: SettingProblem[] = [];
    if (!(await packs.active(input.packId))) found.push({ field: '/packId', message: `is not a credit pack for sale (${input.packId})` });
    if (input.enabled) {
      const billing = await billingAccounts.findOne({ _id: accountId }, { projection: { paymentMethod: 1 } });
      if (!billing?.paymentMethod)
        found.push({ field: '/enabled', message: 'needs a card saved at checkout first (buy a pack with saveCard: true)' });
    }
    return found;
  }

  /**
   * Saves the settings, with their audit entry in the same update (pinned to what they replace).
   * Turning it on again after failures starts their count afresh. Then the account's threshold and
   * latch follow: armed when on, gone when off.
   */
  async function update(accountId: string, input: AutoRechargeInput, audit: AuditContext, now = new Date()): Promise<void> {
    for (;;) {
      const billing: BillingAccountDoc | null = await billingAccounts.findOne({ _id: accountId });
      const before: Partial<AutoRechargeState> = billing?.autoRecharge ?? {};
      const turnedOn = input.enabled && !before.enabled;
      const changes = changesOf(before as never, input as never, SETTINGS);
      // Field by field: what the recharges keep beside the settings (the month's count, the one in
      // flight, the failures) is theirs, and may change meanwhile.
      const set: Record<string, unknown> = {};
      for (const field of SETTINGS) set[`autoRecharge.${field}`] = input[field];
      if (input.enabled) set['autoRecharge.disabledReason'] = null;
      if (turnedOn) set['autoRecharge.consecutiveFailures'] = 0;
      const pins: Record<string, unknown> = {};
      for (const field of SETTINGS) pins[`autoRecharge.${field}`] = before[field] === undefined ? { $exists: false } : before[field];
      const draft = auditDraft(audit, accountId, 'auto_recharge.updated', { type: 'auto_recharge', id: accountId }, changes, now);
      try {
        const { matchedCount, upsertedCount } = await billingAccounts.updateOne(
          { _id: accountId, ...pins },
          { $set: set, ...(Object.keys(changes).length ? { $push: { auditDrafts: draft } } : {}) },
          { upsert: !billing },
        );
        if (matchedCount === 0 && upsertedCount === 0) continue;
      } catch (err) {
        if (isDuplicateKey(err)) continue; // made by another request meanwhile
        throw err;
      }
      break;
    }
    await auditLog.flush('billing', accountId);
    if (input.enabled) {
      await accounts.updateOne(
        { _id: accountId },
        { $set: { rechargeBelow: input.threshold, rechargeArmed: true }, $unset: { rechargeArmsAt: '' } },
      );
    } else {
      await accounts.updateOne(
        { _id: accountId },
        { $unset: { rechargeBelow: '', rechargeArmed: '', rechargeArmsAt: '', rechargeDueAt: '' } },
      );
    }
  }

  return { view, problems, update };
}

export type AutoRecharge = ReturnType<typeof createAutoRecharge>;
