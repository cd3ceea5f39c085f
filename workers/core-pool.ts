//! The core pool's workers: webhook endpoints, the sweeper, batch runners, billing and mail (their
//! workflows and activities), and webhook deliveries on a queue of their own. Only a process that
//! runs the core pool loads this module and what it imports (workers/pools.ts): the tool pools
//! start without them, a quarter of a second sooner.
import { Worker, type WorkerOptions, type WorkflowBundle } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { WEBHOOK_DELIVERY_QUEUE } from '../contracts/temporal-names.js';
import { createCoreActivities } from '../activities/core/index.js';
import { webhookWiring } from '../activities/core/webhooks.js';
import { resumingOnGrant } from '../domain/batches/index.js';
import { createStripeApi, type createRechargeTrigger } from '../domain/billing/index.js';
import { createMailer } from '../domain/mail/index.js';
import type { PoolDeps, PoolWorkers } from './pool-types.js';

/**
 * Webhook delivery tasks one core process runs at once, on their own queue; each carries one or
 * more of an endpoint's attempts (a batch). An attempt mostly waits on its receiver (up to 10 s),
 * holding a socket and a few kilobytes, so there are many: one endpoint holds at most
 * WEBHOOK_ENDPOINT_CONCURRENCY attempts, so at most that many tasks, and only this many endpoints
 * slow at the same moment, all at that concurrency in batches of one, would make another's
 * attempt wait (512 / 16 = 32). Add core replicas for more.
 */
export const WEBHOOK_DELIVERY_SLOTS = 512;

/** What the core pool's workers share with the others of the process (workers/pools.ts makes them). */
export interface CoreShared {
  common: Pick<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'dataConverter'>;
  client: Client;
  workflowBundle: WorkflowBundle;
  traced: Pick<WorkerOptions, 'sinks'>;
  tracedActivities: NonNullable<NonNullable<WorkerOptions['interceptors']>['activity']>;
  onRechargeDue: ReturnType<typeof createRechargeTrigger>['onRechargeDue'];
}

export async function createCoreWorkers(deps: PoolDeps, shared: CoreShared): Promise<PoolWorkers> {
  const { common, client, workflowBundle, traced, tracedActivities, onRechargeDue } = shared;
  // Events of the monthly allowances' grants also wake a batch paused for credits.
  const wiring = webhookWiring({ config: deps.config, db: deps.db, client, log: deps.log, net: deps.net });
  const coreWiring = { ...wiring, onEvent: resumingOnGrant(deps.db, client, wiring.onEvent) };
  // Said once, at start: without it every mail (sign-up, password reset, invitations) is dropped.
  if (!deps.config.smtpUrl) deps.log.warn('SMTP_URL is not set: mail is not sent, only logged as not sent (docs/OPERATING.md#mail)');
  const activities = createCoreActivities(deps.db, {
    ...coreWiring,
    blobs: deps.blobs,
    auditRetentionDays: deps.config.auditRetentionDays,
    batches: { client, secretKey: deps.config.secretKey, concurrency: deps.config.batchConcurrency },
    billing: {
      client,
      log: deps.log,
      stripe: deps.config.stripe && createStripeApi(deps.config.stripe),
      mailer: createMailer({ client, secretKey: deps.config.secretKey, log: deps.log }),
      baseUrl: deps.config.publicBaseUrl,
    },
    onRechargeDue,
    mail: { secretKey: deps.config.secretKey, smtpUrl: deps.config.smtpUrl, from: deps.config.mailFrom, log: deps.log },
  });
  const worker = await Worker.create({
    ...common,
    ...traced,
    interceptors: { activity: tracedActivities },
    workflowBundle,
    // Webhook endpoints, the sweeper, batch runners and mail; the ledger steps too, for calls started
    // on `core` before calls ran on their pool's queue (and the attempts of endpoint runs begun
    // before deliveries had their queue).
    activities,
    maxCachedWorkflows: 2_000,
    maxConcurrentWorkflowTaskExecutions: 100,
    maxConcurrentLocalActivityExecutions: 200,
  });
  // Delivery attempts only: no workflows, no other activity.
  const deliveries = await Worker.create({
    ...common,
    taskQueue: WEBHOOK_DELIVERY_QUEUE,
    interceptors: { activity: tracedActivities },
    activities: { deliverWebhook: activities.deliverWebhook, deliverWebhooks: activities.deliverWebhooks },
    maxConcurrentActivityTaskExecutions: WEBHOOK_DELIVERY_SLOTS,
  });
  return { workers: [worker, deliveries], close: async () => {} };
}
