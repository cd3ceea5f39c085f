//! A tool call as the API runs it: its idempotency key claimed (call-idempotency.ts), its workflow
//! started and its answer awaited (call-workflow.ts), a call given up on settled here; or, for an
//! asynchronous call, its credits reserved and a 202 as soon as it runs. The route only speaks HTTP.
import type { Db } from 'mongodb';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { ToolDefinition } from '../domain/tools/index.js';
import { untilReachable } from '../lib/mongo.js';
import { type CallDoc, createAsyncCalls } from '../domain/calls/index.js';
import { ANSWERED_TOO_LATE, callRef, type CallRef, type ToolCallResult } from '../contracts/call.js';
import { giveUp, reserveAhead } from '../contracts/call-life.js';
import type { Ledger } from '../domain/ledger/index.js';
import { ServiceError } from '../contracts/errors.js';
import { createIdempotency } from './call-idempotency.js';
import { createCallWorkflows } from './call-workflow.js';
import type { CallRequest } from './call-request.js';

export { IDEMPOTENCY_TTL_MS, parseIdempotencyKey } from './call-idempotency.js';
/** How long the API waits past a tool's own deadline for the ledger steps around it. */
const ANSWER_GRACE_MS = 30_000;
/**
 * Past the workflow's answer deadline, time for its result to reach us. A commit that runs
 * after answerBy refunds instead (domain/ledger/ledger.ts), and the API settles a call it gives up on
 * itself (answerOf): an answer given up on is never charged.
 */
const READ_MARGIN_MS = 5_000;
/**
 * How long the API waits, past its deadline, for the answer of a call whose charge got through
 * (a worker died between the commit and the answer, or a backlog held its workflow's last task):
 * at least this long, and up to ANSWER_HELD_MAX_MS after the request arrived. The answer is sure
 * to come (only the workflow's end is left to run), and any error answered instead would be an
 * error for a charged call: a soak on an overloaded machine saw workflow tasks wait 40-60 s.
 */
const CHARGED_ANSWER_WAIT_MS = 60_000;
/** Within Node's request timeout (300 s), which would cut the connection before any answer. */
const ANSWER_HELD_MAX_MS = 280_000;
/** How long an asynchronous call's start may wait for Temporal before answering 503. */
const ASYNC_START_MS = 30_000;

export interface CallAnswer {
  requestId: string;
  replayed: boolean;
  result: ToolCallResult;
}

/**
 * Who is told that a synchronous call's workflow runs, so that its client may cancel it (MCP).
 * Told once it started (cancelling a workflow not yet started cancels nothing), while the call
 * waits for its answer, which aborts `answered`; a cancellation that came first is the watcher's
 * to apply. Never rejects: a call it could not record runs on, only beyond a cancellation's reach.
 */
export interface CallWatch {
  started(workflowId: string, answered: AbortSignal): Promise<void>;
}

/** The 202 of an asynchronous call: where to read it, and how it stands. */
export interface AsyncCallAnswer {
  requestId: string;
  replayed: boolean;
  status: CallDoc['status'];
}

/**
 * How long a call may wait for Temporal or the database before answering 503 (epoch ms): past its
 * tool's deadline and the ledger steps around it for a synchronous call, ASYNC_START_MS for an
 * asynchronous call's start.
 */
export function waitLimit(tool: ToolDefinition, arrivedAt: number, async: boolean): number {
  return async ? arrivedAt + ASYNC_START_MS : answerDeadline(tool, arrivedAt) + READ_MARGIN_MS;
}

/** The workflow's answer deadline: a commit after it refunds instead (domain/ledger/ledger.ts). */
function answerDeadline(tool: ToolDefinition, arrivedAt: number): number {
  return arrivedAt + tool.timeoutMs + ANSWER_GRACE_MS;
}

const isUnavailable = (err: unknown) => err instanceof ServiceError && err.code === 'unavailable';

/** The call as the ledger knows it. */
const refOf = (req: CallRequest, requestId: string): CallRef => callRef({ ...req, tool: req.tool.name, cost: req.tool.cost }, requestId);

/** `ledger` is the process's one ledger, whose events reach the webhook fan-out. */
export function createToolCalls(deps: { db: Db; client: Client; secretKey: Buffer; ledger: Ledger }) {
  const { ledger } = deps;
  const { fingerprint, claim, release } = createIdempotency(deps);
  const { start, awaitResult, cancel, destroyKey } = createCallWorkflows(deps);

  async function call(req: CallRequest, watch?: CallWatch): Promise<CallAnswer> {
    // The database's outages are waited out like Temporal's: the claim is safe to repeat.
    const deadline = waitLimit(req.tool, req.arrivedAt, false);
    const { workflowId, replayed } = await untilReachable(deadline, () => claim(req));
    const answerBy = answerDeadline(req.tool, req.arrivedAt);
    try {
      const handle = await start(req, workflowId, { answerBy }, deadline).catch((err: unknown) => {
        // Temporal may have started the workflow and lost only its answer: then it runs, and may
        // charge, whatever we answer. Settled like an answer given up on.
        if (!isUnavailable(err)) throw err;
        return { unstarted: err };
      });
      if ('unstarted' in handle)
        return {
          requestId: workflowId,
          replayed,
          result: await givenUp(req, deps.client.workflow.getHandle(workflowId), handle.unstarted),
        };
      const answered = new AbortController();
      const watched = watch?.started(workflowId, answered.signal);
      try {
        return { requestId: workflowId, replayed, result: await answerOf(req, handle, deadline) };
      } finally {
        answered.abort();
        await watched;
      }
    } finally {
      // The call's key goes once it is answered, a 503 included (the workflow no longer does it:
      // see there). A key this fails to delete expires within the hour; the answer stands either way.
      if (req.tool.secretFields?.length) await destroyKey(workflowId).catch(() => undefined);
    }
  }

  /**
   * The workflow's result by `deadline`. Past it the API gives up, and first settles the call in
   * the ledger itself, so that what it answers and what is charged agree whatever the workflow
   * does next: a refund, unless the charge got through already (its worker died after the commit,
   * before the answer could leave); then the answer is on its way with the worker that takes the
   * call up again, and is waited for a while longer.
   */
  async function answerOf(req: CallRequest, handle: WorkflowHandle, deadline: number): Promise<ToolCallResult> {
    let unreachable: unknown;
    try {
      const result = await awaitResult(handle, deadline);
      if (result) return result;
    } catch (err) {
      if (!isUnavailable(err)) throw err;
      unreachable = err;
    }
    return givenUp(req, handle, unreachable);
  }

  /** A call the API gives up on (`unreachable`: Temporal was), settled first: see answerOf. */
  async function givenUp(req: CallRequest, handle: WorkflowHandle, unreachable?: unknown): Promise<ToolCallResult> {
    if ((await giveUp(ledger, refOf(req, handle.workflowId))) === 'charged') {
      const until = Math.max(Date.now() + CHARGED_ANSWER_WAIT_MS, req.arrivedAt + ANSWER_HELD_MAX_MS);
      const late = await awaitResult(handle, until).catch(() => undefined);
      if (late) return late;
    }
    if (unreachable) throw unreachable;
    return { ok: false, error: ANSWERED_TOO_LATE };
  }

  // --- Asynchronous calls (`Prefer: respond-async`): the same workflow, id rules and idempotency,
  // with `async` set instead of `answerBy`; the API answers 202 once it runs. The reserve is made
  // here first (the workflow's own reserve then finds the hold), so a short balance is the same
  // 402 as for a synchronous call, before any 202. Only these calls write a `calls` record.
  const asyncCalls = createAsyncCalls(deps.db);

  async function callAsync(req: CallRequest): Promise<AsyncCallAnswer> {
    const deadline = waitLimit(req.tool, req.arrivedAt, true);
    const { workflowId, replayed } = await untilReachable(deadline, () => claim(req));
    if (replayed) {
      const doc = await asyncCalls.byId(req.accountId, workflowId);
      if (!doc)
        throw new ServiceError(
          'idempotency_conflict',
          'This Idempotency-Key was used for a synchronous call: repeat it without Prefer: respond-async to get its answer.',
        );
      // Its start may have failed with a 503: starting again is harmless (USE_EXISTING).
      if (doc.status === 'running') await start(req, workflowId, { async: true }, deadline);
      return { requestId: workflowId, replayed: true, status: doc.status };
    }
    await asyncCalls.open({ requestId: workflowId, accountId: req.accountId, tool: req.tool.name, now: new Date() });
    const refused = await reserveAhead(ledger, refOf(req, workflowId));
    if (refused) {
      await asyncCalls.discard(workflowId);
      await release(req, workflowId);
      throw new ServiceError(refused.code, refused.message, refused.extras);
    }
    await start(req, workflowId, { async: true }, deadline);
    return { requestId: workflowId, replayed: false, status: 'running' };
  }

  return { call, callAsync, cancel, fingerprint };
}

export type ToolCalls = ReturnType<typeof createToolCalls>;
