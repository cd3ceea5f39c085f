//! `POST /api/v1/tools/<tool>` (synchronous, or asynchronous with `Prefer: respond-async`) and the
//! catalogue `GET /api/v1/tools`.
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { CATALOGUE, findTool } from '../../domain/catalogue.js';
import { GROUPS, type ToolDefinition } from '../../domain/tool-definition.js';
import type { Metrics } from '../../lib/metrics.js';
import type { ToolSchemas } from '../../domain/tool-schemas.js';
import type { Authenticator } from '../auth.js';
import { DEFAULT_BODY_LIMIT, readJsonObject } from '../body.js';
import { ToolError } from '../../lib/errors.js';
import type { TargetGuard } from '../../lib/target-guard.js';
import { sendProblem } from '../problem.js';
import { parseIdempotencyKey, waitLimit, type ToolCalls } from '../tool-calls.js';
import { prefersAsync, sendAccepted } from '../respond-async.js';
import type { Validators } from '../validation.js';

export interface ToolRoutesDeps {
  baseUrl: string;
  auth: Authenticator;
  rateLimit: Middleware;
  validators: Validators;
  schemas: Map<string, ToolSchemas>;
  toolCalls: ToolCalls;
  metrics: Metrics;
  /** Refuses, without DNS, a target the workers' guard would refuse (an IP literal in a refused range). */
  guard: Pick<TargetGuard, 'checkTargets'>;
}

function knownTool(name: string): ToolDefinition {
  const tool = findTool(name);
  if (!tool) throw new ToolError('unknown_tool', `There is no tool named "${name}". GET /api/v1/tools lists them.`);
  return tool;
}

export function toolRoutes(deps: ToolRoutesDeps): Router {
  const router = new Router();

  router.get('/api/v1/tools', (ctx) => {
    ctx.body = {
      tools: [...CATALOGUE.values()].map((t) => ({
        name: t.name,
        group: t.group,
        groupTitle: GROUPS[t.group],
        cost: t.cost,
        pool: t.pool,
        path: `/api/v1/tools/${t.name}`,
        inputSchema: deps.schemas.get(t.name)!.input,
        docs: `${deps.baseUrl}/docs#tag/${t.group}/operation/${t.name}`,
      })),
    };
  });

  router.post(
    '/api/v1/tools/:tool',
    async (ctx, next) => {
      ctx.state.arrivedAt = Date.now();
      ctx.state.tool = knownTool(ctx.params.tool!);
      await next();
    },
    // A call waits out a database outage as it waits out Temporal's, within its deadline.
    deps.auth.require('api_key', (ctx) => waitLimit(ctx.state.tool, ctx.state.arrivedAt, prefersAsync(ctx.headers.prefer))),
    deps.rateLimit,
    async (ctx) => {
      const tool: ToolDefinition = ctx.state.tool;
      const idempotencyKey = parseIdempotencyKey(ctx.headers['idempotency-key'] as string | undefined);
      const body = await readJsonObject(ctx, tool.maxBodyBytes ?? DEFAULT_BODY_LIMIT);
      const input = deps.validators.validate(tool.name, body);
      tool.precheck?.(input);
      if (tool.targets) deps.guard.checkTargets(tool.targets(input));

      const request = { accountId: ctx.state.principal.accountId, tool, input, idempotencyKey, arrivedAt: ctx.state.arrivedAt as number };
      if (prefersAsync(ctx.headers.prefer)) {
        sendAccepted(ctx, tool, await deps.toolCalls.callAsync(request));
        return;
      }
      const answer = await deps.toolCalls.call(request);
      ctx.state.requestId = answer.requestId;
      if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
      const { result } = answer;
      if (result.ok) {
        deps.metrics.toolCalls.inc({ tool: tool.name, outcome: 'charged' });
        deps.metrics.creditsCharged.inc({ tool: tool.name }, result.charged);
        ctx.set('X-Credits-Charged', String(result.charged));
        ctx.set('X-Credits-Remaining', String(result.balance));
        ctx.body = result.output;
        return;
      }
      const { code, message, extras } = result.error;
      deps.metrics.toolCalls.inc({ tool: tool.name, outcome: code });
      sendProblem(ctx, deps.baseUrl, code, message, extras);
    },
  );

  // Any other method on a tool path: 405 for a known tool, 404 otherwise.
  router.all('/api/v1/tools/:tool', (ctx) => {
    knownTool(ctx.params.tool!);
    ctx.set('Allow', 'POST');
    throw new ToolError('method_not_allowed', `Tools are called with POST, not ${ctx.method}.`);
  });

  return router;
}
