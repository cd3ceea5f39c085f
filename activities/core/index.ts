//! Activities of the core pool: the ledger steps of a call, the end of its key, the outcome of an
//! asynchronous call, the sweeper, the monthly allowances and grant expiry, batches' runners, mail,
//! and billing (Stripe's events, auto-recharges).
import type { Db } from 'mongodb';
import { createLedger, type RechargeSink } from '../../domain/ledger/index.js';
import type { CallRef } from '../../contracts/call.js';
import { createCallKeys } from '../../domain/calls/index.js';
import { createCallOutcomes } from '../call-outcome.js';
import { createAllowances } from '../../domain/plans/index.js';
import { DEFAULT_SWEEP, createSweeper } from './sweeper.js';
import { DatabaseBlobStore, type BlobStore } from '../../lib/blob-store.js';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks.js';
import type { EventSink } from '../../domain/events/index.js';
import { createBatchActivities, type BatchActivityDeps } from './batches.js';
import { createBillingActivities, type BillingActivityDeps } from './billing.js';
import { createMailActivities, type MailActivityDeps } from './mail.js';

export interface CoreActivityOptions {
  /** Webhook fan-out of the events the ledger records (domain/webhooks/fanout.ts `onEvent`). */
  onEvent?: EventSink;
  /** What webhook delivery needs; without it this worker cannot run webhook endpoint workflows. */
  webhooks?: WebhookActivityDeps;
  /** Where big outputs wait (BLOB_STORE_URL), swept here; the database when absent. */
  blobs?: BlobStore;
  /** AUDIT_RETENTION_DAYS: how long the sweeper keeps audit log entries (default 400). */
  auditRetentionDays?: number;
  /** What batch runners need; without it this worker cannot run them. */
  batches?: Omit<BatchActivityDeps, 'db' | 'onEvent'>;
  /** What Stripe's events and auto-recharges need; without it this worker cannot run their workflows. */
  billing?: Omit<BillingActivityDeps, 'db' | 'onEvent'>;
  /** Where a commit that makes an account's auto-recharge due hands it on (domain/billing/recharge-trigger.ts). */
  onRechargeDue?: RechargeSink;
  /** What sending mail needs (SECRET_KEY, SMTP_URL, MAIL_FROM); without it this worker cannot run mail workflows. */
  mail?: MailActivityDeps;
}

export function createCoreActivities(db: Db, options: CoreActivityOptions = {}) {
  const ledger = createLedger(db, options.onEvent, { onRechargeDue: options.onRechargeDue });
  const callKeys = createCallKeys(db);
  const sweep = options.auditRetentionDays
    ? { ...DEFAULT_SWEEP, auditRetentionMs: options.auditRetentionDays * 24 * 60 * 60 * 1000 }
    : DEFAULT_SWEEP;
  const sweeper = createSweeper(db, sweep, options.blobs);
  const allowances = createAllowances(db, options.onEvent);
  return {
    reserve: (call: CallRef) => ledger.reserve(call),
    commit: (call: CallRef) => ledger.commit(call),
    refund: (call: CallRef) => ledger.refund(call),
    destroyCallKey: (requestId: string) => callKeys.destroy(requestId),
    ...createCallOutcomes({ db, blobs: options.blobs ?? new DatabaseBlobStore(db), onEvent: options.onEvent }),
    sweep: (now?: number) => sweeper.sweep(now),
    /** `now`: the allowance workflow's time, so months can be tested by skipping time. */
    runAllowances: (now: number) => allowances.run(now),
    ...(options.webhooks ? createWebhookActivities(options.webhooks) : {}),
    ...(options.batches ? createBatchActivities({ ...options.batches, db, onEvent: options.onEvent }) : {}),
    // biome-ignore lint/nursery/noMisusedPromises: an object of activities, not a promise (Biome 2.6 infers its type from an inner async function)
    ...(options.billing ? createBillingActivities({ ...options.billing, db, onEvent: options.onEvent }) : {}),
    ...(options.mail ? createMailActivities(options.mail) : {}),
  };
}

export type CoreActivities = ReturnType<typeof createCoreActivities>;
