//! The MCP server one request of a key talks to: `tools/list` from the catalogue (tool-list.ts),
//! `tools/call` through the path a REST call takes (the key's tools and rate, the checks of
//! call-admission.ts, the one workflow of tool-calls.ts, charged iff it succeeds) and answered as a
//! tool result (results.ts). Built per request: the service keeps no MCP session, so any API
//! replica answers any request.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Db } from 'mongodb';
import { findTool } from '../../domain/catalogue.js';
import type { ToolSchemas } from '../../domain/tool-schemas.js';
import type { Accounts } from '../../domain/accounts.js';
import { ServiceError } from '../../lib/errors.js';
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
import { parseIdempotencyKey, type ToolCalls } from '../tool-calls.js';
import { IDEMPOTENCY_KEY_SHAPE } from '../call-idempotency.js';
import { ACCOUNT_TOOLS, toolsListedTo, USAGE_MAX_LIMIT } from './tool-list.js';
import { refusalResult, successResult } from './results.js';
import type { McpRenderLinks } from './render-links.js';

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
}

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

export function createMcpServer(principal: Principal, deps: McpServerDeps): Server {
  const server = new Server(
    { name: 'utility-tools', title: 'Utility Tools', version: VERSION },
    {
      capabilities: { tools: {} },
      instructions: 'Each tool call is charged its cost in credits when it succeeds; account-balance tells what is left.',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolsListedTo(principal, deps.schemas) }));

  async function callTool(name: string, args: Record<string, unknown>, extra: Extra, requestId: { id: string }): Promise<CallToolResult> {
    const arrivedAt = Date.now();
    await deps.limiter.admit(principal);
    if (name === ACCOUNT_TOOLS.balance) return accountBalance();
    if (name === ACCOUNT_TOOLS.usage) return usage(args);
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
      const render = await withProgress(extra, deps.links.render(request));
      requestId.id = render.requestId;
      const meta = { charged: render.charged, balance: render.balance, requestId: render.requestId, replayed: render.replayed };
      const link = deps.links.linkTo(signer, tool, args, render.mimeType);
      return successResult(tool, JSON.parse(render.json.toString('utf8')), meta, link);
    }
    const answer = await withProgress(extra, deps.toolCalls.call(request));
    requestId.id = answer.requestId;
    const { output, charged, balance } = chargedOutput(deps.metrics, tool, answer.result);
    const value = (await deps.outputs.value(output)) as Record<string, unknown>;
    return successResult(tool, value, { charged, balance, requestId: answer.requestId, replayed: answer.replayed });
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
    try {
      return await callTool(req.params.name, req.params.arguments ?? {}, extra, requestId);
    } catch (err) {
      return refusalResult(err, { baseUrl: deps.baseUrl, requestId: requestId.id, log: deps.log });
    }
  });

  return server;
}
