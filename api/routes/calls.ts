//! Asynchronous tool calls as HTTP: `Prefer: respond-async` on a tool call (RFC 7240) and its
//! 202, `GET /api/v1/calls/{requestId}` (an API key of the account: status, then the output or the
//! problem a synchronous call would have answered), `GET /api/v1/calls` (recent calls, newest
//! first), and the same list for the dashboard under the owner token (`/api/v1/account/calls`).
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Db } from 'mongodb';
import { CALL_ANSWER_RETENTION_MS, createAsyncCalls } from '../../domain/async-calls.js';
import type { ToolDefinition } from '../../domain/tool-definition.js';
import { isErrorCode, ToolError } from '../../lib/errors.js';
import type { CallDoc } from '../../lib/mongo.js';
import type { Authenticator } from '../auth.js';
import { problemBody } from '../problem.js';
import type { AsyncCallAnswer } from '../tool-calls.js';
import { decodeCursor, encodeCursor, parseLimit } from './account.js';

const CALLS_DEFAULT_LIMIT = 50;
const CALLS_MAX_LIMIT = 200;

/** True when the request's `Prefer` header holds `respond-async` (tokens are case-insensitive). */
export function prefersAsync(header: string | string[] | undefined): boolean {
  const values = Array.isArray(header) ? header : header ? [header] : [];
  return values.some((v) => v.split(',').some((pref) => pref.split(';')[0]!.trim().toLowerCase() === 'respond-async'));
}

export const callLocation = (requestId: string) => `/api/v1/calls/${encodeURIComponent(requestId)}`;

/** When to look again: a tenth of the tool's deadline, 1 to 10 s. */
export const pollAfterSeconds = (tool: Pick<ToolDefinition, 'timeoutMs'>) => Math.min(10, Math.max(1, Math.ceil(tool.timeoutMs / 10_000)));

/** The 202 of an asynchronous call (or of a repeat of one with the same Idempotency-Key). */
export function sendAccepted(ctx: Context, tool: ToolDefinition, answer: AsyncCallAnswer): void {
  ctx.state.requestId = answer.requestId;
  ctx.status = 202;
  ctx.set('Location', callLocation(answer.requestId));
  ctx.set('Preference-Applied', 'respond-async');
  ctx.set('Retry-After', String(pollAfterSeconds(tool)));
  if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
  ctx.body = { requestId: answer.requestId, tool: tool.name, status: answer.status, location: callLocation(answer.requestId) };
}

/** A call as the list shows it: no output. */
function summary(doc: CallDoc) {
  return {
    requestId: doc._id,
    tool: doc.tool,
    status: doc.status,
    createdAt: doc.createdAt,
    completedAt: doc.completedAt,
    charged: doc.charged,
    code: doc.problem?.code ?? null,
  };
}

export function callRoutes(deps: { db: Db; auth: Authenticator; rateLimit: Middleware; baseUrl: string }): Router {
  const router = new Router();
  const calls = createAsyncCalls(deps.db);
  const byKey = [deps.auth.require('api_key'), deps.rateLimit];

  async function list(ctx: Context) {
    const limit = parseLimit(ctx.query.limit, CALLS_DEFAULT_LIMIT, CALLS_MAX_LIMIT);
    const after = typeof ctx.query.cursor === 'string' ? decodeCursor(ctx.query.cursor) : undefined;
    const { rows, more } = await calls.page(ctx.state.principal.accountId, { limit, after });
    const last = rows.at(-1);
    ctx.body = { items: rows.map(summary), nextCursor: more && last ? encodeCursor(last.createdAt, last._id) : null };
  }

  router.get('/api/v1/calls', ...byKey, list);
  router.get('/api/v1/account/calls', deps.auth.require('owner_token'), deps.rateLimit, list);

  router.get('/api/v1/calls/:requestId', ...byKey, async (ctx) => {
    const requestId = ctx.params.requestId!;
    const doc = await calls.byId(ctx.state.principal.accountId, requestId);
    // Another account's call is as unknown as one that never was.
    if (!doc) throw new ToolError('not_found', `There is no call ${requestId} on this account.`);
    if (doc.expired || (doc.expiresAt && doc.expiresAt.getTime() <= Date.now())) {
      throw new ToolError('call_expired', `The call ended more than ${CALL_ANSWER_RETENTION_MS / 3_600_000} hours ago; its answer is no longer kept.`, {
        expiredAt: doc.expiresAt?.toISOString() ?? null,
      });
    }
    const body: Record<string, unknown> = { ...summary(doc), expiresAt: doc.expiresAt };
    if (doc.status === 'running') ctx.set('Retry-After', '1');
    if (doc.status === 'succeeded') body.output = await calls.readOutput(doc);
    if (doc.status === 'failed' && doc.problem && isErrorCode(doc.problem.code)) {
      body.problem = problemBody(deps.baseUrl, doc.problem.code, doc.problem.detail, doc._id, doc.problem.extras);
    }
    ctx.body = body;
  });

  return router;
}
