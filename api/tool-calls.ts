//! Starting a tool call: idempotency, sealing secret fields, starting the `toolCall` workflow
//! and waiting for its answer, or, for an asynchronous call, answering as soon as it runs. The
//! Koa route around it only speaks HTTP.
import { createHmac } from 'node:crypto';
import type { Db } from 'mongodb';
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, isGrpcDeadlineError, type Client, type WorkflowHandle } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { ToolDefinition } from '../domain/tool-definition.js';
import { canonicalJson } from '../lib/canonical-json.js';
import { randomBase62, sha256Hex } from '../lib/ids.js';
import { collections, insertIfAbsent, untilReachable } from '../lib/mongo.js';
import type { CallDoc } from '../lib/mongo-documents.js';
import { seal, splitSecrets } from '../lib/sealed.js';
import { ANSWERED_TOO_LATE, CALL_WORKFLOW_TASK_TIMEOUT_MS, SEARCH_ATTRIBUTES, insufficientCredits, TASK_QUEUES, WORKFLOW_TYPES, type ToolCallInput, type ToolCallResult } from '../lib/temporal-shared.js';
import { createCallKeys } from '../domain/call-keys.js';
import { createAsyncCalls } from '../domain/async-calls.js';
import type { CallRef, Ledger } from '../domain/ledger.js';
import { ToolError } from '../lib/errors.js';
import { untilDeadline } from '../lib/until-deadline.js';

/** Idempotency keys are remembered this long (CONTRACT.md). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long the API waits past a tool's own deadline for the ledger steps around it. */
const ANSWER_GRACE_MS = 30_000;
/**
 * Past the workflow's answer deadline, time for its result to reach us. A commit that runs
 * after answerBy refunds instead (domain/ledger.ts), and the API settles a call it gives up on
 * itself (answerOf): an answer given up on is never charged.
 */
const READ_MARGIN_MS = 5_000;
/**
 * How long the API waits, past its deadline, for the answer of a call whose charge got through
 * (a worker died between the commit and the answer): the worker that takes it up again brings it.
 */
const CHARGED_ANSWER_WAIT_MS = 60_000;
/** How long an asynchronous call's start may wait for Temporal before answering 503. */
const ASYNC_START_MS = 30_000;

const IDEMPOTENCY_KEY_SHAPE = /^[\x20-\x7e]{1,255}$/;

export interface CallRequest {
  accountId: string;
  tool: ToolDefinition;
  /** Validated input, defaults applied. */
  input: Record<string, unknown>;
  idempotencyKey?: string;
  /** When the request arrived (epoch ms): its deadlines count from there. */
  arrivedAt: number;
}

export interface CallAnswer {
  requestId: string;
  replayed: boolean;
  result: ToolCallResult;
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

/** The workflow's answer deadline: a commit after it refunds instead (domain/ledger.ts). */
function answerDeadline(tool: ToolDefinition, arrivedAt: number): number {
  return arrivedAt + tool.timeoutMs + ANSWER_GRACE_MS;
}

/** The call as the ledger knows it. */
function callRef(req: CallRequest, requestId: string): CallRef {
  return { accountId: req.accountId, requestId, tool: req.tool.name, cost: req.tool.cost };
}

/** An idempotency record's id: the key is kept only as its hash, per account. */
function idempotencyId(accountId: string, keyHash: string): string {
  return `${accountId}:${keyHash}`;
}

export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!IDEMPOTENCY_KEY_SHAPE.test(header)) {
    throw new ToolError('validation_failed', 'Idempotency-Key must be 1 to 255 printable characters.', {
      errors: [{ field: 'header:Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }],
    });
  }
  return header;
}

/** `ledger` is the process's one ledger, whose events reach the webhook fan-out. */
export function createToolCalls(deps: { db: Db; client: Client; secretKey: Buffer; ledger: Ledger }) {
  const { idempotency } = collections(deps.db);
  const callKeys = createCallKeys(deps.db);
  const { ledger } = deps;

  /**
   * The fingerprint of a call for idempotency: keyed (HMAC), so the stored value reveals
   * nothing of the body, which may hold a password.
   */
  function fingerprint(tool: string, input: Record<string, unknown>): string {
    return createHmac('sha256', deps.secretKey).update(`${tool}\n${canonicalJson(input)}`).digest('hex');
  }

  /** The workflow id of the call, and whether an earlier request with the same key exists. */
  async function claim(req: CallRequest): Promise<{ workflowId: string; replayed: boolean }> {
    if (!req.idempotencyKey) return { workflowId: `call-${req.accountId}-${randomBase62(20)}`, replayed: false };
    const keyHash = sha256Hex(req.idempotencyKey);
    const workflowId = `call-${req.accountId}-idem-${keyHash.slice(0, 32)}`;
    const now = new Date();
    const doc = {
      _id: idempotencyId(req.accountId, keyHash),
      accountId: req.accountId,
      fingerprint: fingerprint(req.tool.name, req.input),
      workflowId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    };
    if (await insertIfAbsent(idempotency, doc)) return { workflowId, replayed: false };
    const earlier = await idempotency.findOne({ _id: doc._id });
    if (earlier && earlier.expiresAt > now) {
      if (earlier.fingerprint !== doc.fingerprint) {
        throw new ToolError('idempotency_conflict', 'This Idempotency-Key was used with another tool or body.');
      }
      return { workflowId: earlier.workflowId, replayed: true };
    }
    // Expired but not yet swept: the key starts a new call.
    const fresh = { ...doc, workflowId: `${workflowId}-${randomBase62(8)}` };
    await idempotency.replaceOne({ _id: doc._id }, fresh, { upsert: true });
    return { workflowId: fresh.workflowId, replayed: false };
  }

  /** Gives an idempotency key back when its call never started (an asynchronous 402). */
  async function release(req: CallRequest, workflowId: string): Promise<void> {
    if (req.idempotencyKey) await idempotency.deleteOne({ _id: idempotencyId(req.accountId, sha256Hex(req.idempotencyKey)), workflowId });
  }

  async function workflowInput(req: CallRequest, workflowId: string, deadline: number): Promise<ToolCallInput> {
    const { clear, secret, hasSecrets } = splitSecrets(req.input, req.tool.secretFields ?? []);
    const execution = req.tool.execution ?? 'local';
    const base: ToolCallInput = {
      accountId: req.accountId,
      tool: req.tool.name,
      pool: req.tool.pool,
      execution,
      ...(execution === 'local' ? { oneStep: true as const } : {}),
      cost: req.tool.cost,
      timeoutMs: req.tool.timeoutMs,
      input: clear,
    };
    if (!hasSecrets) return base;
    const key = await untilReachable(deadline, () => callKeys.issue(workflowId));
    return { ...base, sealed: seal(key, secret, workflowId) };
  }

  async function call(req: CallRequest): Promise<CallAnswer> {
    // The database's outages are waited out like Temporal's: the claim is safe to repeat.
    const deadline = waitLimit(req.tool, req.arrivedAt, false);
    const { workflowId, replayed } = await untilReachable(deadline, () => claim(req));
    const answerBy = answerDeadline(req.tool, req.arrivedAt);
    const handle = await start(req, workflowId, { answerBy }, deadline);
    try {
      return { requestId: workflowId, replayed, result: await answerOf(req, handle, deadline) };
    } finally {
      // The call's key goes once it is answered, a 503 included (the workflow no longer does it:
      // see there). A key this fails to delete expires within the hour; the answer stands either way.
      if (req.tool.secretFields?.length) await callKeys.destroy(workflowId).catch(() => undefined);
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
      if (!(err instanceof ToolError && err.code === 'unavailable')) throw err;
      unreachable = err;
    }
    const decided = await ledger.refund(callRef(req, handle.workflowId));
    if (decided.outcome === 'charged') {
      const late = await awaitResult(handle, Date.now() + CHARGED_ANSWER_WAIT_MS).catch(() => undefined);
      if (late) return late;
    }
    if (unreachable) throw unreachable;
    return { ok: false, error: ANSWERED_TOO_LATE };
  }

  /**
   * The workflow's result, or undefined when it is still running at the deadline. Temporal being
   * unreachable (a restart) is waited out until the deadline, then answered 503.
   * The client's own retries give up after about 10 s.
   */
  async function awaitResult(handle: WorkflowHandle, deadline: number): Promise<ToolCallResult | undefined> {
    const result = await untilDeadline<ToolCallResult | null>(
      deadline,
      () => deps.client.withDeadline(deadline, () => handle.result() as Promise<ToolCallResult>),
      (err, final) => {
        if (err instanceof WorkflowFailedError) throw err; // an operator terminated it: internal error
        if (final && isGrpcDeadlineError(err)) return null; // still running
        return undefined;
      },
      unavailable,
    );
    return result ?? undefined;
  }

  /**
   * Starts the workflow, retrying while Temporal cannot be reached: with the call's fixed
   * workflow id and USE_EXISTING a repeated start is harmless, and a start whose answer was lost
   * may have started the workflow, which then runs whatever we answer.
   */
  async function start(req: CallRequest, workflowId: string, when: { answerBy: number } | { async: true }, deadline: number): Promise<WorkflowHandle> {
    const args = [{ ...(await workflowInput(req, workflowId, deadline)), ...when }];
    return untilDeadline(
      deadline,
      () =>
        deps.client.workflow.start(WORKFLOW_TYPES.toolCall, {
          // The tool's pool runs the whole call: its workers host the workflow and the ledger steps.
          taskQueue: TASK_QUEUES[req.tool.pool],
          workflowId,
          args,
          workflowTaskTimeout: CALL_WORKFLOW_TASK_TIMEOUT_MS,
          // A repeat of a running idempotent call attaches to it; a finished one is replayed below.
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: new TypedSearchAttributes([
            { key: SEARCH_ATTRIBUTES.accountId, value: req.accountId },
            { key: SEARCH_ATTRIBUTES.tool, value: req.tool.name },
          ]),
        }),
      (err) => (err instanceof WorkflowExecutionAlreadyStartedError ? deps.client.workflow.getHandle(workflowId) : undefined),
      unavailable,
    );
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
      if (!doc) throw new ToolError('idempotency_conflict', 'This Idempotency-Key was used for a synchronous call: repeat it without Prefer: respond-async to get its answer.');
      // Its start may have failed with a 503: starting again is harmless (USE_EXISTING).
      if (doc.status === 'running') await start(req, workflowId, { async: true }, deadline);
      return { requestId: workflowId, replayed: true, status: doc.status };
    }
    const ref = callRef(req, workflowId);
    await asyncCalls.open({ requestId: workflowId, accountId: req.accountId, tool: req.tool.name, now: new Date() });
    const reserved = await ledger.reserve(ref);
    if (!reserved.ok) {
      await asyncCalls.discard(workflowId);
      await release(req, workflowId);
      const refused = insufficientCredits(req.tool.cost, reserved.balance);
      throw new ToolError(refused.code, refused.message, refused.extras);
    }
    await start(req, workflowId, { async: true }, deadline);
    return { requestId: workflowId, replayed: false, status: 'running' };
  }

  return { call, callAsync, fingerprint };
}

function unavailable(cause: unknown): ToolError {
  return new ToolError('unavailable', 'The service cannot run calls right now; retry shortly.', {}, { cause });
}

export type ToolCalls = ReturnType<typeof createToolCalls>;
