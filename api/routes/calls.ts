//! Asynchronous tool calls as HTTP: `Prefer: respond-async` on a tool call (RFC 7240) and its
//! 202, `GET /api/v1/calls/{requestId}` (an API key of the account: status, then the output or the
//! problem a synchronous call would have answered), `GET /api/v1/calls` (recent calls, newest
//! first), and the same list for the dashboard under the owner token (`/api/v1/account/calls`).
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Db } from 'mongodb';
import { CALL_ANSWER_RETENTION_MS, createAsyncCalls, type CallDoc } from '../../domain/calls/index.js';
import { isErrorCode, ServiceError } from '../../contracts/errors.js';
import type { Authenticator } from '../auth.js';
import type { OutputBodies } from '../output-body.js';
import { problemBody } from '../problem.js';
import { cursorOf, pageBody, parseLimit } from '../paging.js';

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

export function callRoutes(deps: { db: Db; auth: Authenticator; rateLimit: Middleware; baseUrl: string; outputs: OutputBodies }): Router {
  const router = new Router();
  const calls = createAsyncCalls(deps.db);
  const byKey = [deps.auth.require('api_key'), deps.rateLimit];

  async function list(ctx: Context) {
    const limit = parseLimit(ctx.query.limit);
    ctx.body = pageBody(await calls.page(ctx.state.principal.accountId, { limit, after: cursorOf(ctx.query) }), summary);
  }

  router.get('/api/v1/calls', ...byKey, list);
  router.get('/api/v1/account/calls', deps.auth.require('owner_token'), deps.rateLimit, list);

  router.get('/api/v1/calls/:requestId', ...byKey, async (ctx) => {
    const requestId = ctx.params.requestId!;
    const doc = await calls.byId(ctx.state.principal.accountId, requestId);
    // Another account's call is as unknown as one that never was.
    if (!doc) throw new ServiceError('not_found', `There is no call ${requestId} on this account.`);
    if (doc.expired || (doc.expiresAt && doc.expiresAt.getTime() <= Date.now())) {
      throw new ServiceError(
        'call_expired',
        `The call ended more than ${CALL_ANSWER_RETENTION_MS / 3_600_000} hours ago; its answer is no longer kept.`,
        {
          expiredAt: doc.expiresAt?.toISOString() ?? null,
        },
      );
    }
    const body: Record<string, unknown> = { ...summary(doc), expiresAt: doc.expiresAt };
    if (doc.status === 'running') ctx.set('Retry-After', '1');
    if (doc.status === 'failed' && doc.problem && isErrorCode(doc.problem.code)) {
      body.problem = problemBody(deps.baseUrl, doc.problem.code, doc.problem.detail, doc._id, doc.problem.extras);
    }
    if (doc.status === 'succeeded') await deps.outputs.send(ctx, await calls.readOutput(doc), { envelope: body, field: 'output' });
    else ctx.body = body;
  });

  return router;
}
