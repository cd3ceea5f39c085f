//! Activities of the billing workflows: applying one of Stripe's events (workflows/stripe-event.ts),
//! the steps of an account's auto-recharge (workflows/auto-recharge.ts) and the billing upkeep.
//! Each is safe to run again: the domain steps under them are keyed and guarded.
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import type { Logger } from '../../lib/logger.js';
import {
  AUTO_RECHARGE_SIGNALS,
  autoRechargeWorkflowId,
  type RechargeStart,
  type StripeFact,
  type StripeFactOutcome,
} from '../../contracts/billing-messages.js';
import type { EventSink } from '../../domain/events/index.js';
import { createGrants, createLedger } from '../../domain/ledger/index.js';
import {
  createPacks,
  createCustomers,
  createFulfilment,
  createRecharges,
  createRechargeTrigger,
  SIGNATURE_MEMORY_MS,
  type StripeApi,
} from '../../domain/billing/index.js';
import type { Mailer } from '../../domain/mail/index.js';

export interface BillingActivityDeps {
  db: Db;
  client: Client;
  log: Logger;
  /** Absent when payments are off: events still apply (none arrive), no recharge starts. */
  stripe?: StripeApi;
  /** Webhook fan-out of the events grants, voids and failed recharges record. */
  onEvent?: EventSink;
  /** Mails a failed recharge to the account's billing contacts; none without it. */
  mailer?: Mailer;
  /** PUBLIC_BASE_URL: the mails' links. */
  baseUrl?: string;
}

export interface RechargeStep {
  accountId: string;
  rechargeId: string;
}

export function createBillingActivities(deps: BillingActivityDeps) {
  const { db, log } = deps;
  const packs = createPacks(db);
  const grants = createGrants(db, deps.onEvent);
  const ledger = createLedger(db, deps.onEvent);
  const customers = deps.stripe && createCustomers(db, deps.stripe);
  const fulfilment = createFulfilment({ db, grants, ledger, log, saveCard: customers?.saveCard });
  const recharges = createRecharges({
    db,
    stripe: deps.stripe,
    packs,
    grants,
    fulfilment,
    log,
    onEvent: deps.onEvent,
    mailer: deps.mailer,
    baseUrl: deps.baseUrl,
  });
  const trigger = createRechargeTrigger({ db, client: deps.client, log });
  const { stripeSignatures } = collections(db);

  /** Tells the account's recharge workflow that its recharge settled; it finds out by itself if this is lost. */
  async function tellSettled(accountId: string, rechargeId: string): Promise<void> {
    try {
      await deps.client.workflow.getHandle(autoRechargeWorkflowId(accountId)).signal(AUTO_RECHARGE_SIGNALS.settled, rechargeId);
    } catch (err) {
      log.info({ accountId, rechargeId, reason: (err as Error).name }, 'recharge settled while its workflow was not waiting');
    }
  }

  return {
    /** One of Stripe's events, applied (once, whatever the order: see domain/billing/fulfilment.ts). */
    async applyStripeEvent(fact: StripeFact): Promise<StripeFactOutcome> {
      switch (fact.kind) {
        case 'session':
          return fulfilment.applySession(fact, Date.now());
        case 'charge':
          return fulfilment.applyCharge(fact, Date.now());
        case 'dispute':
          return fulfilment.applyDispute(fact, Date.now());
        case 'payment_intent': {
          const outcome = await recharges.applyIntent(fact);
          if (outcome.accountId && outcome.rechargeId) await tellSettled(outcome.accountId, outcome.rechargeId);
          return outcome;
        }
      }
    },

    beginRecharge: (step: RechargeStep): Promise<RechargeStart> => recharges.begin(step.accountId, step.rechargeId),
    rechargeSettled: (step: RechargeStep): Promise<boolean> => recharges.settled(step.rechargeId),
    releaseRecharge: (step: RechargeStep): Promise<void> => recharges.release(step.accountId, step.rechargeId),

    /** Hands on recharges whose hand-off was cut short, and forgets signatures past their tolerance. */
    async billingUpkeep(): Promise<{ woken: number; forgotten: number }> {
      const woken = await trigger.wakeStale();
      const { deletedCount } = await stripeSignatures.deleteMany({ at: { $lt: new Date(Date.now() - SIGNATURE_MEMORY_MS) } });
      return { woken, forgotten: deletedCount };
    },
  };
}

export type BillingActivities = ReturnType<typeof createBillingActivities>;
