//! Names shared by the API, the workers and the workflows: task queues, search attributes,
//! workflow types. Pure data, safe to import inside the workflow sandbox.
import { defineSearchAttributeKey } from '@temporalio/common';
import type { ErrorCode } from './errors.js';

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
 * Where a call's file goes instead of its answer: the account's destination (only its id travels;
 * the worker loads and opens its credentials) and the object's place in it,
 * `{prefix}/{folder}/{name}.{ext}`. A single call is `{requestId}/0`; a batch's item
 * `{batchId}/{index}`.
 */
export interface CallDestination {
  id: string;
  folder: string;
  name: string;
}

/** What a batch item's call records when it ends (domain/batch-progress.ts, finishItem): its item, its call and how it ended. */
export function batchItemEnd(batch: NonNullable<ToolCallInput['batch']>, accountId: string, requestId: string, result: ToolCallResult) {
  return { batchId: batch.id, index: batch.index, attempt: batch.attempt, total: batch.total, requestId, accountId, result };
}

/** The workflow id of an account's batch runner: one per account, so its bound holds across its batches. */
export const batchRunnerId = (accountId: string) => `batch-runner-${accountId}`;

/**
 * The request id (workflow id) of a batch item's call: readable in the Temporal UI and in usage,
 * and fixed per attempt, so a repeated start finds the call it started.
 */
export function batchItemRequestId(accountId: string, batchId: string, index: number, attempt: number): string {
  return `call-${accountId}-${batchId}-${index}${attempt > 0 ? `-r${attempt}` : ''}`;
}

/** The batch a call belongs to, read from its request id (batchItemRequestId); undefined for any other call. */
export function batchOfRequestId(requestId: string): string | undefined {
  return /^call-acc_[0-9A-Za-z]+-(bat_[0-9A-Za-z]+)-\d+(-r\d+)?$/.exec(requestId)?.[1];
}

/** Signal to a batch runner: something changed (an item ended, a batch was made, cancelled or can resume). */
export const BATCH_RUNNER_WAKE = 'wake';

/** What the batch runner's workflow carries: only which account; everything else is in the database. */
export interface BatchRunnerInput {
  accountId: string;
  /** History events before the runner continues as new (default: the workflow's own); carried on. */
  maxHistoryEvents?: number;
}

/** What one fill of an account's batch slots found (activities/core/batches.ts). */
export interface BatchFill {
  /** Items of the account's batches running now. */
  running: number;
  /** Items that still wait for a slot in running batches. */
  waiting: number;
  /** Epoch ms of the next time a paused batch must be looked at (its wait for credits ends), if any. */
  wakeAt?: number;
}

/** The door a call came in by when it was not REST (its usage entry says so). */
export type CallVia = 'mcp' | 'monitor';

/** What the API hands a `toolCall` workflow. Secret fields travel sealed (see lib/sealed.ts). */
export interface ToolCallInput {
  accountId: string;
  tool: string;
  pool: Pool;
  cost: number;
  timeoutMs: number;
  /** Validated input with defaults applied and secret fields removed. */
  input: Record<string, unknown>;
  /** Secret fields sealed with the call's key, when the tool has any. */
  sealed?: string;
  /**
   * Epoch ms after which the API no longer waits for the answer: a call still running then is
   * refunded, never committed, so a client that got no 200 is never charged.
   */
  answerBy?: number;
  /**
   * How the workflow runs the tool (ToolDefinition.execution). Absent in calls started before
   * calls ran on their pool's queue: those ran it as an activity on the pool's queue, `queued`.
   */
  execution?: 'local' | 'queued';
  /**
   * Reserve, the tool and commit or refund run as one step (activities/call-step.ts). Absent in
   * calls started before (a `queued` tool's call until its pool had a queue of long calls):
   * those take three steps, and replay so.
   */
  oneStep?: true;
  /**
   * Set for an asynchronous call (`Prefer: respond-async`): nobody waits for the answer, so the
   * workflow records it (and `call.completed`) as its last step. Absent for synchronous calls.
   */
  async?: true;
  /**
   * Set when the call writes its file to a destination (`Output-Destination`): the answer says
   * where it was stored, and a write that fails refunds the call (`destination_error`).
   */
  destination?: CallDestination;
  /** The API key that made the call: its usage entry names it and its monthly spending counts it. Absent in calls started before. */
  keyId?: string;
  /** That key's monthlyCreditLimit when it has one: the reserve refuses past it (domain/quick-reserve.ts). */
  keyCreditLimit?: number;
  /**
   * `mcp` for a call made over MCP, `monitor` for a monitor's run: its usage entry says so. Absent
   * for REST calls and calls started before.
   */
  via?: CallVia;
  /**
   * Set for a monitor's run (its schedule's, or one asked for now): the step judges the answer
   * with the monitor's assertions once the call is settled (domain/monitors/). Absent for every other call.
   */
  monitor?: { id: string };
  /**
   * Set for an item of a batch: the workflow records its outcome on the item (and tells the
   * account's batch runner) as its last step. Absent for every other call. `total`: the batch's
   * item count, so that step can claim the next item itself (absent in items started before).
   */
  batch?: { id: string; index: number; attempt: number; total?: number };
  /**
   * Set for an asynchronous capture asked for with `Cache-Control`: the render cache entry
   * (domain/render-cache.ts `renderCacheId`) its outcome's step stores the image under once the
   * call succeeded. Absent for every other call.
   */
  cacheAs?: string;
}

/**
 * The longest a worker may hold one of a call's workflow tasks before Temporal gives it to another
 * worker: what a call loses when its worker dies mid-task. The worker heartbeats a task that runs
 * a long local activity at 80% of this, so the bound is on silence, not on the tool's duration.
 * Not much shorter: on a starved machine tasks run late, and a timeout then runs them again, adding
 * to the load that made them late; this and one re-run still fit every call's answer deadline
 * (its tool's timeout plus 30 s).
 */
export const CALL_WORKFLOW_TASK_TIMEOUT_MS = 10_000;

/** What a tool activity receives. */
export interface ToolActivityInput {
  requestId: string;
  input: Record<string, unknown>;
  sealed?: string;
}

export interface ToolCallError {
  code: ErrorCode;
  message: string;
  extras: Record<string, unknown>;
}

export type ToolCallResult = { ok: true; output: unknown; charged: number; balance: number } | { ok: false; error: ToolCallError };

/** The answer of a tool that did not finish within its deadline, all attempts included. */
export const TOOL_TIMED_OUT: ToolCallError = { code: 'tool_timeout', message: 'The tool did not finish within its deadline.', extras: {} };

/** The answer of a tool that failed in a way it did not decide on: nothing internal is said. */
export const TOOL_FAILED: ToolCallError = { code: 'internal_error', message: 'The tool failed unexpectedly.', extras: {} };

/** The answer of a tool whose dependency (the database) stayed out of reach: retried, then a 503. */
export const DEPENDENCY_UNREACHABLE: ToolCallError = {
  code: 'unavailable',
  message: 'A service the tool needs cannot be reached right now; retry shortly.',
  extras: {},
};

/** The answer of a call nobody waits for any more: taken up, or finished, past its answer deadline. */
export const ANSWERED_TOO_LATE: ToolCallError = { code: 'tool_timeout', message: 'The call did not finish in time.', extras: {} };

/**
 * The answer of a call its client cancelled (MCP's `notifications/cancelled`): its workflow ended
 * cancelled and refunded the hold. A repeat with the call's idempotency key answers this too: the
 * key names that call, which is over.
 */
export const CALL_CANCELLED: ToolCallError = {
  code: 'cancelled',
  message:
    'The call was cancelled by its client before it finished; nothing was charged. Send it again with a new idempotency key to run it.',
  extras: {},
};

/** The 402 of a call the balance cannot cover, whether the workflow or the API (async) finds it. */
export function insufficientCredits(cost: number, balance: number): ToolCallError {
  return {
    code: 'insufficient_credits',
    message: `This call costs ${cost} credits; the balance is ${balance}.`,
    extras: { balance, cost },
  };
}

export function keyCreditLimitReached(limit: number, spent: number, cost: number): ToolCallError {
  return {
    code: 'key_credit_limit',
    message: `This call costs ${cost} credits; the key has spent ${spent} of its ${limit} this month.`,
    extras: { limit, spent, cost },
  };
}

/** The call as the ledger knows it (domain/ledger-terms.ts CallRef): whose, which, its cost and its key. */
export function callRefOf(call: ToolCallInput, requestId: string) {
  return {
    accountId: call.accountId,
    requestId,
    tool: call.tool,
    cost: call.cost,
    ...(call.keyId ? { keyId: call.keyId } : {}),
    ...(call.keyCreditLimit !== undefined ? { keyCreditLimit: call.keyCreditLimit } : {}),
    ...(call.via ? { via: call.via } : {}),
  };
}

/** The error of a refused reserve: the key's monthly limit when that was it, else the balance. */
export function reserveRefusal(cost: number, refused: { balance: number; keyLimit?: { limit: number; spent: number } }): ToolCallError {
  return refused.keyLimit
    ? keyCreditLimitReached(refused.keyLimit.limit, refused.keyLimit.spent, cost)
    : insufficientCredits(cost, refused.balance);
}
