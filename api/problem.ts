//! The one error path of the API: every failure becomes an RFC 9457 problem+json answer with
//! the contract's stable code. What the client sees is kept apart from what is logged.
import type { Context, Middleware } from 'koa';
import { ERRORS, ServiceError, type ErrorCode, type ProblemExtras } from '../contracts/errors.js';
import { newId } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import { isDatabaseUnreachable } from '../lib/mongo.js';
import { activeTraceId } from '../lib/trace-context.js';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  requestId: string;
  [extra: string]: unknown;
}

export function problemBody(
  baseUrl: string,
  code: ErrorCode,
  detail: string,
  requestId: string,
  extras: ProblemExtras = {},
  statusOverride?: number,
): ProblemBody {
  const { title } = ERRORS[code];
  const status = statusOverride ?? ERRORS[code].status;
  // Extras never override the standard members.
  return { ...extras, type: `${baseUrl}/docs/errors#${code}`, title, status, detail, code, requestId };
}

/** `status`: the route's own status for this code (ServiceErrorOptions.status), else the code's. */
export function sendProblem(ctx: Context, baseUrl: string, code: ErrorCode, detail: string, extras: ProblemExtras = {}, status?: number) {
  const error: { status: number; retryAfterSeconds?: number } = ERRORS[code];
  ctx.status = status ?? error.status;
  if (error.retryAfterSeconds && !ctx.response.get('Retry-After')) ctx.set('Retry-After', String(error.retryAfterSeconds));
  ctx.type = 'application/problem+json';
  // The request's trace (api/http-tracing.ts), when tracing is on: where an operator finds the call.
  const traceId = activeTraceId();
  ctx.body = problemBody(baseUrl, code, detail, ctx.state.requestId, traceId ? { ...extras, traceId } : extras, status);
}

/** Gives every request an id (a tool call replaces it with its workflow id) and echoes it. */
export function requestId(): Middleware {
  return async (ctx, next) => {
    ctx.state.requestId = newId('req');
    try {
      await next();
    } finally {
      ctx.set('X-Request-Id', ctx.state.requestId);
    }
  };
}

export function problems(options: { baseUrl: string; log: Logger }): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new ServiceError('not_found', `No resource at ${ctx.method} ${ctx.path}.`);
      }
    } catch (err) {
      if (err instanceof ServiceError) {
        for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
        sendProblem(ctx, options.baseUrl, err.code, err.message, err.extras, err.status);
      } else if (isDatabaseUnreachable(err)) {
        // The contract's 503: a client should retry, not report a bug.
        options.log.warn({ err, requestId: ctx.state.requestId, path: ctx.path }, 'database unreachable');
        sendProblem(ctx, options.baseUrl, 'unavailable', 'The service cannot reach its database right now; retry shortly.');
      } else {
        options.log.error({ err, requestId: ctx.state.requestId, path: ctx.path }, 'unhandled error');
        sendProblem(ctx, options.baseUrl, 'internal_error', 'Something went wrong on our side; quote the request id if you contact us.');
      }
    }
  };
}
