//! Handing a due auto-recharge to the account's recharge workflow without keeping the call waiting.
//! The charge that found it due (domain/ledger/settlement.ts) calls the trigger and goes on; the trigger
//! disarms the account's latch (one update: of any number of concurrent charges, one wins) and
//! wakes the workflow (signal-with-start: one per account). The disarming update marks the account
//! `rechargeDueAt`; the workflow clears it when it takes the recharge up, and the billing upkeep
//! wakes it again for a mark left older than a minute (a process that died in between). Once a
//! recharge ends (or is not needed), `rearmer` arms the latch again.
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import type { Logger } from '../../lib/logger.js';
import { wakeWorkflow } from '../../lib/workflow-wake.js';
import { SEARCH_ATTRIBUTES, WORKFLOW_TYPES } from '../../contracts/temporal-names.js';
import { AUTO_RECHARGE_SIGNALS, autoRechargeWorkflowId, type AutoRechargeInput } from '../../contracts/billing-messages.js';
import type { RechargeSink } from '../ledger/index.js';

/** A mark this old whose recharge was not taken up is handed on again. */
export const RECHARGE_HANDOFF_STALE_MS = 60_000;

/** Wakes the account's recharge workflow, starting it when it is not running. */
export async function wakeRecharge(client: Client, accountId: string): Promise<void> {
  const input: AutoRechargeInput = { accountId };
  await wakeWorkflow(client, WORKFLOW_TYPES.autoRecharge, {
    workflowId: autoRechargeWorkflowId(accountId),
    args: [input],
    signal: AUTO_RECHARGE_SIGNALS.due,
    searchAttributes: [{ key: SEARCH_ATTRIBUTES.accountId, value: accountId }],
  });
}

export function createRechargeTrigger(options: { db: Db; client: Client; log: Logger }) {
  const { accounts } = collections(options.db);

  async function handOff(accountId: string): Promise<void> {
    const now = new Date();
    // Armed, or disarmed by a month's limit that has run out: whoever flips it hands the recharge on.
    const flipped = await accounts.updateOne(
      { _id: accountId, rechargeBelow: { $exists: true }, $or: [{ rechargeArmed: true }, { rechargeArmsAt: { $lte: now } }] },
      { $set: { rechargeArmed: false, rechargeDueAt: now }, $unset: { rechargeArmsAt: '' } },
    );
    if (flipped.modifiedCount === 1) await wakeRecharge(options.client, accountId);
  }

  /** The ledger's sink: returns at once; a failure is logged, and the upkeep hands it on again. */
  const onRechargeDue: RechargeSink = (accountId) => {
    handOff(accountId).catch((err) =>
      options.log.warn({ err, accountId }, 'auto-recharge hand-off failed; the billing upkeep hands it on again'),
    );
  };

  /** Wakes the workflow of every account whose mark is older than RECHARGE_HANDOFF_STALE_MS (the billing upkeep). */
  async function wakeStale(now = Date.now()): Promise<number> {
    let woken = 0;
    for await (const doc of accounts.find(
      { rechargeDueAt: { $lt: new Date(now - RECHARGE_HANDOFF_STALE_MS) } },
      { projection: { _id: 1 } },
    )) {
      await wakeRecharge(options.client, doc._id);
      woken++;
    }
    return woken;
  }

  return { onRechargeDue, wakeStale };
}

export type RechargeTrigger = ReturnType<typeof createRechargeTrigger>;

/** The latch armed again: the next charge below the threshold starts a recharge (if auto-recharge is still on). */
export function rearmer(db: Db) {
  const { accounts } = collections(db);
  return (accountId: string) =>
    accounts.updateOne(
      { _id: accountId, rechargeBelow: { $exists: true } },
      { $set: { rechargeArmed: true }, $unset: { rechargeArmsAt: '' } },
    );
}
export type Rearm = ReturnType<typeof rearmer>;
