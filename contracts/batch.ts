//! What a batch's runner and its items' calls agree on: the runner's id, input and wake signal, an
//! item call's request id and what it records when it ends. Pure data, safe in the workflow sandbox.
import type { ToolCallInput, ToolCallResult } from './call.js';

/** What a batch item's call records when it ends (domain/batches/progress.ts, finishItem): its item, its call and how it ended. */
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
