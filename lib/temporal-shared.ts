//! Names shared by the API, the workers and the workflows: task queues, search attributes,
//! workflow types. Pure data, safe to import inside the workflow sandbox.
import { defineSearchAttributeKey } from '@temporalio/common';
import type { ErrorCode } from './errors.js';

/** The worker pools: `core` runs workflows, ledger and webhooks; the others run tools. */
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

/** Operators filter calls by these in the Temporal UI. No PII: ids and tool names only. */
export const SEARCH_ATTRIBUTES = {
  accountId: defineSearchAttributeKey('AccountId', 'KEYWORD'),
  tool: defineSearchAttributeKey('Tool', 'KEYWORD'),
} as const;

export const WORKFLOW_TYPES = {
  toolCall: 'toolCall',
  sweeper: 'sweeper',
  /** One per webhook endpoint (workflows/webhook-endpoint.ts), id `webhook-endpoint-<endpointId>`. */
  webhookEndpoint: 'webhookEndpoint',
  /** Scheduled re-send of events whose webhook fan-out did not finish. */
  webhookRefan: 'webhookRefan',
} as const;

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
}

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

export type ToolCallResult =
  | { ok: true; output: unknown; charged: number; balance: number }
  | { ok: false; error: ToolCallError };
