//! The HTTP span of each request: route, method, status, the account and the tool, never a key, a
//! token or a body. The rest of the request (the workflow start, log lines, the problem's
//! `traceId`) runs inside it, and every answer carries its W3C `traceparent`. Installed only when
//! tracing is on (api/app.ts).
import { context, trace, SpanKind, SpanStatusCode, ROOT_CONTEXT, type Tracer } from '@opentelemetry/api';
import type { Middleware } from 'koa';
import { SPAN_ATTRIBUTES, traceparent } from '../lib/trace-context.js';
import { routeLabel } from './route-label.js';

/**
 * A caller's own `traceparent` is not continued: the API is the edge, and a caller that could
 * choose the trace could also force every call to be sampled. Each request starts a trace.
 */
export function httpTracing(tracer: Tracer): Middleware {
  return async (ctx, next) => {
    const span = tracer.startSpan(
      `HTTP ${ctx.method}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': ctx.method } },
      ROOT_CONTEXT,
    );
    ctx.set('traceparent', traceparent(span));
    try {
      await context.with(trace.setSpan(ROOT_CONTEXT, span), next);
    } finally {
      const route = routeLabel(ctx as Parameters<typeof routeLabel>[0]);
      span.updateName(`${ctx.method} ${route}`);
      span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', ctx.status);
      span.setAttribute(SPAN_ATTRIBUTES.requestId, ctx.state.requestId);
      const accountId: unknown = ctx.state.principal?.accountId;
      if (typeof accountId === 'string') span.setAttribute(SPAN_ATTRIBUTES.accountId, accountId);
      const tool: unknown = ctx.state.tool?.name;
      if (typeof tool === 'string') span.setAttribute(SPAN_ATTRIBUTES.tool, tool);
      const code: unknown = ctx.status >= 400 && (ctx.body as { code?: unknown } | undefined)?.code;
      if (typeof code === 'string') span.setAttribute(SPAN_ATTRIBUTES.problemCode, code);
      // OpenTelemetry's HTTP convention: a server span fails on 5xx; a 4xx is the caller's.
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, ...(typeof code === 'string' && { message: code }) });
      span.end();
    }
  };
}
