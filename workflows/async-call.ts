//! The last step of an asynchronous tool call, and only of one: record its outcome for
//! `GET /api/v1/calls/{id}` and fire `call.completed` (domain/calls/async-calls.ts), as a local activity
//! on whichever worker runs the call. A synchronous call never reaches this.
import { proxyLocalActivities } from '@temporalio/workflow';
import type { CoreActivities } from '../activities/core/index.js';
import type { ToolCallResult } from '../contracts/call.js';

/** A single write and an event; retried until the database answers, like the ledger steps. */
const { recordCallOutcome } = proxyLocalActivities<CoreActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '200ms', maximumInterval: '10s' },
});

/** `cacheAs`: the render cache entry the step also stores a succeeded capture's image under (ToolCallInput). */
export function finishAsyncCall(
  ref: { requestId: string; accountId: string; tool: string },
  result: ToolCallResult,
  cacheAs?: string,
): Promise<void> {
  return recordCallOutcome({ requestId: ref.requestId, accountId: ref.accountId, tool: ref.tool, result, ...(cacheAs ? { cacheAs } : {}) });
}
