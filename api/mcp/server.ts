//! The MCP server one request of a key talks to: `tools/list` from the catalogue (tool-list.ts),
//! `tools/call` through the path a REST call takes (the key's tools and rate, the checks of
//! call-admission.ts, the one workflow of tool-calls.ts, charged iff it succeeds) and answered as a
//! tool result (results.ts). Built per request, so any API replica answers any request: the
//! session it belongs to is a record in the database (domain/mcp-sessions.ts), where a tool call
//! notes its workflow while it runs, so that the client's `notifications/cancelled`, which may
//! reach another replica, finds and cancels it.
import { setTimeout as delay } from 'node:timers/promises';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Db } from 'mongodb';
import { findTool, type ToolSchemas } from '../../domain/tools/index.js';
import type { Accounts } from '../../domain/accounts/index.js';
import type { JsonRpcId, McpSessions } from '../../domain/mcp-sessions.js';
import { ServiceError } from '../../contracts/errors.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { Metrics } from '../../lib/metrics.js';
import { collections } from '../../lib/mongo.js';
import type { Principal } from '../auth.js';
import { DEFAULT_BODY_LIMIT } from '../body.js';
import { checkKeyMayCall, type CallAdmission } from '../call-admission.js';
import { chargedOutput } from '../call-outcome.js';
import type { OutputBodies } from '../output-body.js';
import type { RateLimiter } from '../rate-limit.js';
import { parseIdempotencyKey, type CallWatch, type ToolCalls } from '../tool-calls.js';
import { IDEMPOTENCY_KEY_SHAPE } from '../call-idempotency.js';
import { CALL_CANCELLED } from '../../contracts/call.js';
import { ACCOUNT_TOOLS, toolsListedTo, USAGE_MAX_LIMIT } from './tool-list.js';
import { refusalResult, successResult } from './results.js';
import type { McpRenderLinks } from './render-links.js';
import type { McpResultLinks } from './result-links.js';
import type { MonitorService } from '../../domain/monitors/index.js';
import { callMonitorTool, isMonitorTool, monitorToolsListedTo } from './monitor-tools.js';

export interface McpServerDeps {
  baseUrl: string;
  schemas: Map<string, ToolSchemas>;
  admission: CallAdmission;
  toolCalls: ToolCalls;
  outputs: OutputBodies;
  limiter: Pick<RateLimiter, 'admit'>;
  accounts: Pick<Accounts, 'get'>;
  db: Db;
  metrics: Metrics;
  log: Logger;
  /** A capture's image as a render link, for an account with a link secret. */
  links: McpRenderLinks;
  /** Any other file as a signed, expiring result link. */
  results: McpResultLinks;
  sessions: McpSessions;
  /** The account's monitors (`monitor-list`, `monitor-create`), as the account API has them. */
  monitors: MonitorService;
}

/** What the server of one HTTP request knows of it beyond its credential. */
export interface McpRequestContext {
  /** The request's session (`Mcp-Session-Id`, checked to be the credential's); none, and its calls cannot be cancelled. */
  sessionId?: string;
  /** Ends the HTTP answer of a request without a JSON-RPC response: a cancelled request gets none. */
  endUnanswered(requestId: JsonRpcId): void;
}

/** How long a call runs before it records itself for a cancellation to find (see watchOf). */
const RECORD_AFTER_MS = 1_000;

/** Whether `ms` passed before `signal` aborted. */
const elapsed = (ms: number, signal: AbortSignal): Promise<boolean> => delay(ms, true, { signal }).catch(() => false);

/** How long past its tool's deadline a call's record is kept, for a late cancellation to find (the sweeper removes it). */
const CALL_RECORD_MARGIN_MS = 5 * 60_000;

/** The version the server reports in its `initialize` answer: the API's, as the OpenAPI document gives it. */
const VERSION = '1.0.0';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How often a call that runs on is reported to a client that sent a progress token. */
const PROGRESS_EVERY_MS = 1_000;

/**
 * `work`, with a progress notification each second while it runs when the client asked for them
 * (a `progressToken`): the count of seconds, no total (a call's length is not known ahead).
 */
async function withProgress<T>(extra: Extra, work: Promise<T>): Promise<T> {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return work;
  let seconds = 0;
  const timer = setInterval(() => {
    seconds += 1;
    const params = { progressToken, progress: seconds, message: `running for ${seconds} s` };
    extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined);
  }, PROGRESS_EVERY_MS);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

/**
 * The call's idempotency key: `_meta.idempotencyKey` of the `tools/call` request, else the HTTP
 * request's `Idempotency-Key` header; none, and every call is a new one. Not the JSON-RPC id:
 * clients number their requests from 0 on each connection, so one id names many different calls.
 */
function idempotencyKeyOf(meta: Record<string, unknown> | undefined, extra: Extra): string | undefined {
  const given = meta?.idempotencyKey;
  if (given !== undefined) {
    if (typeof given === 'string' && IDEMPOTENCY_KEY_SHAPE.test(given)) return given;
    throw new ServiceError('validation_failed', '_meta.idempotencyKey must be 1 to 255 printable characters.', {
      errors: [{ field: '/_meta/idempotencyKey', message: 'must be 1 to 255 printable ASCII characters' }],
    });
  }
  const header = extra.requestInfo?.headers['idempotency-key'];
  return parseIdempotencyKey(Array.isArray(header) ? header[0] : header);
}

export function createMcpServer(principal: Principal, deps: McpServerDeps, context: McpRequestContext): Server {
  const server = new Server(
    { name: 'utility-tools', title: 'Utility Tools', version: VERSION },
    {
      capabilities: { tools: {} },
      instructions: 'Each tool call is charged its cost in credits when it succeeds; account-balance tells what is left.',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...toolsListedTo(principal, deps.schemas), ...monitorToolsListedTo(principal)],
  }));

  /** The session's record of the call `extra` asks for, once it runs: what a cancellation looks up. */
  function watchOf(extra: Extra, timeoutMs: number, call: { workflowId?: string }): CallWatch | undefined {
    const { sessionId } = context;
    if (!sessionId) return undefined;
    return {
      started: async (workflowId, answered) => {
        call.workflowId = workflowId;
        // A call answered within RECORD_AFTER_MS is never recorded (no write for most calls): its
        // step looks for its client's cancellation only from then on (activities/call-step.ts). A
        // cancellation meanwhile leaves its mark, which the record finds.
        if (!(await elapsed(RECORD_AFTER_MS, answered))) return;
        try {
          const until = Date.now() + timeoutMs + CALL_RECORD_MARGIN_MS;
          if (await deps.sessions.running(sessionId, extra.requestId, workflowId, until)) await deps.toolCalls.cancel(workflowId);
        } catch (err) {
          deps.log.warn({ err, requestId: workflowId }, 'an MCP call could not be recorded for its cancellation');
        }
      },
    };
  }

  async function callTool(
    name: string,
    args: Record<string, unknown>,
    extra: Extra,
    requestId: { id: string },
    running: { workflowId?: string },
  ): Promise<CallToolResult> {
    const arrivedAt = Date.now();
    await deps.limiter.admit(principal);
    if (name === ACCOUNT_TOOLS.balance) return accountBalance();
    if (name === ACCOUNT_TOOLS.usage) return usage(args);
    if (isMonitorTool(name)) return callMonitorTool(deps.monitors, principal, name, args);
    const tool = findTool(name);
    if (!tool) throw new ServiceError('unknown_tool', `There is no tool named "${name}": tools/list lists them.`);
    checkKeyMayCall(principal, tool);
    const idempotencyKey = idempotencyKeyOf(extra._meta as Record<string, unknown> | undefined, extra);
    const limit = tool.maxBodyBytes ?? DEFAULT_BODY_LIMIT;
    if (Buffer.byteLength(JSON.stringify(args)) > limit)
      throw new ServiceError('payload_too_large', `The arguments are over their limit of ${limit} bytes.`, { limit });
    const request = deps.admission.request(principal, tool, structuredClone(args), { arrivedAt, idempotencyKey, via: 'mcp' });
    const signer = await deps.links.signerFor(tool, principal.accountId);
    if (signer) {
      const render = await withProgress(extra, deps.links.render(request, watchOf(extra, tool.timeoutMs, running)));
      requestId.id = render.requestId;
      const meta = { charged: render.charged, balance: render.balance, requestId: render.requestId, replayed: render.replayed };
      const link = deps.links.linkTo(signer, tool, args, render.mimeType);
      return successResult(tool, JSON.parse(render.json.toString('utf8')), meta, link);
    }
    const answer = await withProgress(extra, deps.toolCalls.call(request, watchOf(extra, tool.timeoutMs, running)));
    requestId.id = answer.requestId;
    const { output, charged, balance } = chargedOutput(deps.metrics, tool, answer.result);
    const value = (await deps.outputs.value(output)) as Record<string, unknown>;
    const link = await deps.results.linkTo(tool, value);
    return successResult(tool, value, { charged, balance, requestId: answer.requestId, replayed: answer.replayed }, link);
  }

  async function accountBalance(): Promise<CallToolResult> {
    const account = await deps.accounts.get(principal.accountId);
    if (!account) throw new ServiceError('not_found', 'The account no longer exists.');
    return successResult(undefined, { balance: account.balance });
  }

  async function usage(args: Record<string, unknown>): Promise<CallToolResult> {
    const limit = args.limit ?? 10;
    if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > USAGE_MAX_LIMIT)
      throw new ServiceError('validation_failed', `limit must be an integer from 1 to ${USAGE_MAX_LIMIT}.`, {
        errors: [{ field: '/limit', message: `must be an integer from 1 to ${USAGE_MAX_LIMIT}` }],
      });
    const rows = await collections(deps.db)
      .ledger.find({ accountId: principal.accountId })
      .sort({ at: -1, _id: -1 })
      .limit(limit as number)
      .toArray();
    const items = rows.map((r) => ({
      requestId: r._id,
      tool: r.tool,
      credits: r.credits,
      outcome: r.outcome,
      at: r.at.toISOString(),
      ...(r.via ? { via: r.via } : {}),
    }));
    return successResult(undefined, { items });
  }

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    // The call's workflow id once it has one, as REST's `X-Request-Id`; a fresh id before.
    const requestId = { id: newId('req') };
    const running: { workflowId?: string } = {};
    let result: CallToolResult;
    try {
      result = await callTool(req.params.name, req.params.arguments ?? {}, extra, requestId, running);
    } catch (err) {
      result = refusalResult(err, { baseUrl: deps.baseUrl, requestId: requestId.id, log: deps.log });
    }
    // This very request was cancelled by its client: the spec has no response for it. Asked only of
    // a call that ended cancelled (a cancellation that came after the charge is answered, which the
    // client ignores); a repeat of a cancelled call's key is another request, and answered.
    if (!(await cancelledByClient(result, running.workflowId, extra))) return result;
    context.endUnanswered(extra.requestId);
    return { content: [] };
  });

  async function cancelledByClient(result: CallToolResult, workflowId: string | undefined, extra: Extra): Promise<boolean> {
    const problem = result._meta?.problem as { code?: string } | undefined;
    if (!context.sessionId || !workflowId || problem?.code !== CALL_CANCELLED.code) return false;
    return deps.sessions.wasCancelled(context.sessionId, extra.requestId, workflowId).catch((err: unknown) => {
      deps.log.warn({ err }, 'could not read whether an MCP call was cancelled');
      return false;
    });
  }

  return server;
}

/**
 * A client's `notifications/cancelled` (any replica may get it, before the SDK answers it 202):
 * the call its session's request runs, found through the session's record, is cancelled, and
 * refunds unless it was charged already. An unknown request (ended, of another session, never
 * made) cancels nothing, and the answer is the same 202.
 */
export async function applyCancellation(
  deps: Pick<McpServerDeps, 'sessions' | 'toolCalls' | 'log'>,
  sessionId: string | undefined,
  body: unknown,
): Promise<void> {
  const parsed = CancelledNotificationSchema.safeParse(body);
  if (!sessionId || !parsed.success || parsed.data.params.requestId === undefined) return;
  try {
    const workflowId = await deps.sessions.cancel(sessionId, parsed.data.params.requestId);
    if (workflowId) await deps.toolCalls.cancel(workflowId);
  } catch (err) {
    deps.log.warn({ err }, 'an MCP cancellation could not be applied');
  }
}
