//! A failed recharge settled: recorded once, counted in the failures in a row, its slot freed, told
//! to the account's webhooks (`credits.recharge_failed`) and mailed to its billing contacts; the
//! third failure in a row turns auto-recharge off.
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';
import { derivedId } from '../../lib/ids.js';
import { type AuditLog, SERVICE_ACTOR, auditDraft } from '../audit/index.js';
import { createEventRecorder, type EventSink } from '../events/index.js';
import type { Mailer } from '../mail/index.js';
import { MAX_CONSECUTIVE_FAILURES } from './auto-recharge.js';
import type { RechargeDoc } from './documents.js';
import { billingContacts, rechargeFailedMail } from './mail-texts.js';
import type { Rearm } from './recharge-trigger.js';

export interface RechargeFailureDeps {
  db: Db;
  onEvent?: EventSink;
  /** Mails a failed recharge to the account's billing contacts (domain/mail/outbox.ts); none without it. */
  mailer?: Mailer;
  /** PUBLIC_BASE_URL: the mails' links. */
  baseUrl?: string;
}

/** A failed recharge settled: recorded, counted, told to the account's webhooks and mailed to its billing contacts. */
export function createRechargeFailure(deps: RechargeFailureDeps, auditLog: AuditLog, rearm: Rearm) {
  const { accounts, billingAccounts, recharges } = collections(deps.db);
  const record = createEventRecorder(deps.db, deps.onEvent);

  /**
   * A failed recharge: recorded once (a success already recorded wins), counted once in the failures
   * in a row (keyed by the recharge), its slot freed, `credits.recharge_failed` fired (its id derived
   * from the recharge, so a retried step fires it once); the third failure in a row turns
   * auto-recharge off and says so, else the latch arms again.
   */
  async function fail(rechargeId: string, reason: string, now: number): Promise<void> {
    await recharges.updateOne(
      { _id: rechargeId, status: 'pending' },
      { $set: { status: 'failed', failureReason: reason, settledAt: new Date(now) } },
    );
    const doc = await recharges.findOne({ _id: rechargeId });
    if (!doc || doc.status !== 'failed') return;
    const { accountId } = doc;
    await billingAccounts.updateOne(
      { _id: accountId, 'autoRecharge.lastFailedRechargeId': { $ne: rechargeId } },
      {
        $inc: { 'autoRecharge.consecutiveFailures': 1 },
        $set: { 'autoRecharge.lastFailedRechargeId': rechargeId },
        $push: {
          auditDrafts: auditDraft(
            SERVICE_ACTOR,
            accountId,
            'recharge.failed',
            { type: 'recharge', id: rechargeId },
            { status: ['pending', 'failed'], reason: [null, doc.failureReason] },
            new Date(now),
          ),
        },
      },
    );
    await billingAccounts.updateOne({ _id: accountId, 'autoRecharge.inFlight': rechargeId }, { $set: { 'autoRecharge.inFlight': null } });
    const state = (await billingAccounts.findOne({ _id: accountId }))?.autoRecharge;
    const failures = state?.consecutiveFailures ?? 1;
    if (state?.enabled && failures >= MAX_CONSECUTIVE_FAILURES) {
      await billingAccounts.updateOne(
        { _id: accountId, 'autoRecharge.enabled': true },
        {
          $set: {
            'autoRecharge.enabled': false,
            'autoRecharge.disabledReason': `${failures} recharges failed in a row (the last: ${doc.failureReason})`,
          },
          $push: {
            auditDrafts: auditDraft(
              SERVICE_ACTOR,
              accountId,
              'auto_recharge.disabled',
              { type: 'auto_recharge', id: accountId },
              { enabled: [true, false] },
              new Date(now),
            ),
          },
        },
      );
      await accounts.updateOne(
        { _id: accountId },
        { $unset: { rechargeBelow: '', rechargeArmed: '', rechargeArmsAt: '', rechargeDueAt: '' } },
      );
    } else if (state?.enabled) {
      await rearm(accountId);
    }
    await auditLog.flush('billing', accountId);
    const enabled = (await billingAccounts.findOne({ _id: accountId }))?.autoRecharge?.enabled ?? false;
    const data = { reason: doc.failureReason ?? reason, consecutiveFailures: failures, autoRechargeEnabled: enabled };
    await record({
      id: derivedId('evt', `recharge_failed:${rechargeId}`),
      accountId,
      event: 'credits.recharge_failed',
      createdAt: new Date(now),
      data,
    });
    await mailFailure(doc, data);
  }

  /**
   * The failure mailed to each billing contact, handed to the outbox under a key of the recharge and
   * the contact: a retried step mails nobody twice.
   */
  async function mailFailure(
    doc: RechargeDoc,
    data: { reason: string; consecutiveFailures: number; autoRechargeEnabled: boolean },
  ): Promise<void> {
    if (!deps.mailer || !deps.baseUrl) return;
    const mail = rechargeFailedMail(deps.baseUrl, {
      reason: data.reason,
      credits: doc.credits,
      consecutiveFailures: data.consecutiveFailures,
      stillOn: data.autoRechargeEnabled,
    });
    for (const contact of await billingContacts(deps.db, doc.accountId)) {
      await deps.mailer.send({ to: contact.email, ...mail }, { idempotencyKey: `recharge_failed:${doc._id}:${contact.id}` });
    }
  }

  return fail;
}

export type RechargeFailure = ReturnType<typeof createRechargeFailure>;
