//! Names the API, the workers and the workflows share: worker pools and their task queues, search
//! attributes, workflow types and a call's workflow task timeout. Pure data, safe in the workflow sandbox.
import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * The worker pools: each tool pool (`cpu`, `network`, `browser`) runs the calls of its tools, the
 * `toolCall` workflow and its ledger steps included, on its own task queue; `core` runs webhook
 * delivery, the sweeper and mail.
 */
export const POOLS = ['core', 'cpu', 'network', 'browser'] as const;
export type Pool = (typeof POOLS)[number];
/** Pools that run tool activities. */
export type ToolPool = Exclude<Pool, 'core'>;

/** Task queue of each worker pool. */
export const TASK_QUEUES: Record<Pool, string> = {
  core: 'core',
  cpu: 'cpu',
  network: 'network',
  browser: 'browser',
};

/**
 * The queue of the delivery attempts of webhook endpoint workflows that run on `workflowQueue`:
 * served by a worker of its own, so attempts waiting on slow receivers never take the slots of the
 * workflow queue's other activities (batches, the sweeper), and those never delay deliveries. (A
 * test that runs endpoints on a queue of its own gets their attempts on a queue of its own too.)
 */
export const webhookDeliveryQueue = (workflowQueue: string) => `${workflowQueue}-webhook-deliveries`;

/** Where the core pool's endpoint workflows post: `core-webhook-deliveries`. */
export const WEBHOOK_DELIVERY_QUEUE = webhookDeliveryQueue(TASK_QUEUES.core);

/**
 * The queue of a pool's long calls: calls of its `queued` tools (conversions, upscales, crawls),
 * which its workers take only as many of at once as their tools can work on, so they never hold
 * the task slots of the pool's short calls.
 */
export const LONG_CALL_QUEUES: Record<ToolPool, string> = {
  cpu: 'cpu-long',
  network: 'network-long',
  browser: 'browser-long',
};

/** The task queue a tool's calls start on, and whose worker runs the whole call. */
export function callTaskQueue(tool: { pool: ToolPool; execution?: 'local' | 'queued' }): string {
  return tool.execution === 'queued' ? LONG_CALL_QUEUES[tool.pool] : TASK_QUEUES[tool.pool];
}

/** Operators filter calls by these in the Temporal UI. No PII: ids and tool names only. */
export const SEARCH_ATTRIBUTES = {
  accountId: defineSearchAttributeKey('AccountId', 'KEYWORD'),
  tool: defineSearchAttributeKey('Tool', 'KEYWORD'),
  /** Set on a batch's item calls only: the batch (`bat_...`) they belong to. */
  batchId: defineSearchAttributeKey('BatchId', 'KEYWORD'),
} as const;

export const WORKFLOW_TYPES = {
  toolCall: 'toolCall',
  sweeper: 'sweeper',
  /** One per webhook endpoint (workflows/webhook-endpoint.ts), id `webhook-endpoint-<endpointId>`. */
  webhookEndpoint: 'webhookEndpoint',
  /** Scheduled re-send of events whose webhook fan-out did not finish. */
  webhookRefan: 'webhookRefan',
  /** Scheduled: grants the monthly allowances that are due and lets lapsed grants expire. */
  allowances: 'allowances',
  /** One per account with batches (workflows/batch-runner.ts), id `batch-runner-<accountId>`. */
  batchRunner: 'batchRunner',
  /** One per Stripe event (workflows/stripe-event.ts), id `stripe-event-<event id>`. */
  stripeEvent: 'stripeEvent',
  /** One per account with auto-recharge (workflows/auto-recharge.ts), id `auto-recharge-<accountId>`. */
  autoRecharge: 'autoRecharge',
  /** Scheduled while payments are on: re-hands cut-short recharges, forgets old Stripe signatures. */
  billingUpkeep: 'billingUpkeep',
  /** One per mail (workflows/mail.ts), id `mail-<digest of its idempotency key>` (domain/mail/message.ts `mailIdOf`). */
  sendMail: 'sendMail',
} as const;

/**
 * The longest a worker may hold one of a call's workflow tasks before Temporal gives it to another
 * worker: what a call loses when its worker dies mid-task. The worker heartbeats a task that runs
 * a long local activity at 80% of this, so the bound is on silence, not on the tool's duration.
 * Not much shorter: on a starved machine tasks run late, and a timeout then runs them again, adding
 * to the load that made them late; this and one re-run still fit every call's answer deadline
 * (its tool's timeout plus 30 s).
 */
export const CALL_WORKFLOW_TASK_TIMEOUT_MS = 10_000;
