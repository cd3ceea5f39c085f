//! A call as every party sees it: what a `toolCall` workflow is handed (ToolCallInput), what it
//! answers (ToolCallResult and the contract's errors of a call), and what the ledger is told of it
//! (CallRef, built by `callRef` alone) and answers. Pure data, safe in the workflow sandbox.
import type { ErrorCode } from './errors.js';
import type { Pool } from './temporal-names.js';

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
  /** That key's monthlyCreditLimit when it has one: the reserve refuses past it (domain/ledger/quick-reserve.ts). */
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

/** The fields of a call the ledger is told: whose, which, its cost, its key and its door. */
export type CallFields = Pick<ToolCallInput, 'accountId' | 'tool' | 'cost' | 'keyId' | 'keyCreditLimit' | 'via'>;

/**
 * The call as the ledger knows it: the one builder of a CallRef, whoever holds the call (the API
 * its request, a workflow or a step its input). Fields a call does not have stay absent, so a
 * history's recorded arguments read as they always did.
 */
export function callRef(call: CallFields, requestId: string): CallRef {
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

/**
 * A call as the ledger knows it (built by `callRef`): the call's own fields and its request id.
 * `keyId` also names a monitor for a monitor's run, whose monthly credit cap is held as a key's is.
 */
export interface CallRef extends CallFields {
  requestId: string;
  /**
   * Epoch ms after which the API no longer waits for this call's answer (ToolCallInput.answerBy).
   * A commit that runs later refunds instead: nobody will see the 200 it would pay for.
   */
  answerBy?: number;
  /**
   * Set on a reserve that may follow this call's own settlement: a workflow task re-run after its
   * worker died, whose earlier run may have committed or refunded before it could report. Such a
   * reserve reads the call's ledger entry first and holds nothing when the call is settled.
   */
  mayBeSettled?: boolean;
}

/**
 * A reserve's answer: held (ok) or refused, with the available balance; `keyLimit` when the key's
 * monthly limit refused it (what it has spent this month).
 */
export type ReserveResult = { ok: true; balance: number } | { ok: false; balance: number; keyLimit?: { limit: number; spent: number } };

export interface CommitResult {
  /** `refunded` when the commit came after the call's answerBy. */
  outcome: 'charged' | 'refunded';
  /** Available balance after the commit. */
  balance: number;
  /** Credits charged: the cost, or 0 when refunded. */
  charged: number;
}
