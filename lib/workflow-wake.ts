//! Waking a long-lived workflow of the core queue (an account's batch runner or recharge, a
//! webhook endpoint's deliveries): one signal, the workflow started with it when it is not running.
import type { Client } from '@temporalio/client';
import { TypedSearchAttributes, type SearchAttributePair } from '@temporalio/common';
import { TASK_QUEUES } from '../contracts/temporal-names.js';
import { detached } from './trace-context.js';

export interface Wake {
  workflowId: string;
  /** The workflow's input, should this signal start it. */
  args: unknown[];
  signal: string;
  signalArgs?: unknown[];
  /** Set on a run this signal starts. */
  searchAttributes?: SearchAttributePair[];
}

/** Signal-with-start, outside the caller's trace: the workflow outlives whoever woke it (lib/trace-context.ts, `detached`). */
export async function wakeWorkflow(client: Client, workflowType: string, wake: Wake): Promise<void> {
  await detached(() =>
    client.workflow.signalWithStart<(...args: unknown[]) => Promise<unknown>, unknown[]>(workflowType, {
      workflowId: wake.workflowId,
      taskQueue: TASK_QUEUES.core,
      args: wake.args,
      signal: wake.signal,
      signalArgs: wake.signalArgs ?? [],
      ...(wake.searchAttributes ? { typedSearchAttributes: new TypedSearchAttributes(wake.searchAttributes) } : {}),
    }),
  );
}
