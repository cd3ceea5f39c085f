//! `POST /api/v1/tools/<tool>` (synchronous, or asynchronous with `Prefer: respond-async`) and the
//! catalogue `GET /api/v1/tools`.
import type { OutputBodies } from '../output-body.js';
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { StoredRender } from '../../domain/render-cache.js';
import { acceptedRenderAge } from '../cache-control.js';
import type { CallRequest } from '../call-request.js';
import { freshFor, setRenderHeaders, type RenderCalls, type RenderHit, type RenderMiss } from '../render-calls.js';
import { CATALOGUE, findTool, GROUPS, type ToolDefinition, type ToolSchemas } from '../../domain/tools/index.js';
import type { Metrics } from '../../lib/metrics.js';
import type { Authenticator, Principal } from '../auth.js';
import { checkKeyMayCall, createCallAdmission } from '../call-admission.js';
import { DEFAULT_BODY_LIMIT, readJsonObject } from '../body.js';
import { ServiceError } from '../../contracts/errors.js';
import type { TargetGuard } from '../../lib/target-guard.js';
import { parseIdempotencyKey, waitLimit, type ToolCalls } from '../tool-calls.js';
import { prefersAsync, sendAccepted } from '../respond-async.js';
import type { Validators } from '../validation.js';
import { chargedOutput } from '../call-outcome.js';
import type { DestinationService } from '../../domain/destinations/index.js';

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
  outputs: OutputBodies;
  /** Checks the destination a call names in `Output-Destination` (only calls that name one). */
  destinations: Pick<DestinationService, 'forCall'>;
  /** Calls of capture tools through the render cache (a `POST` with `Cache-Control`). */
  renders: RenderCalls;
}

/** A stored render as the tool's output JSON: the image base64 in its field, then the rest. */
function storedOutputJson(tool: ToolDefinition, render: StoredRender): string {
  return JSON.stringify({ [tool.image!.field]: render.image.toString('base64'), ...render.entry.meta });
}

function knownTool(name: string): ToolDefinition {
  const tool = findTool(name);
  if (!tool) throw new ServiceError('unknown_tool', `There is no tool named "${name}". GET /api/v1/tools lists them.`);
  return tool;
}

export function toolRoutes(deps: ToolRoutesDeps): Router {
  const router = new Router();
  const admission = createCallAdmission(deps);

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
      const principal: Principal = ctx.state.principal;
      checkKeyMayCall(principal, tool);
      const idempotencyKey = parseIdempotencyKey(ctx.headers['idempotency-key'] as string | undefined);
      const body = await readJsonObject(ctx, tool.maxBodyBytes ?? DEFAULT_BODY_LIMIT);
      const arrivedAt = ctx.state.arrivedAt as number;
      // The body is checked first: a bad field is a 400 whatever the destination.
      const checked = admission.request(principal, tool, body, { arrivedAt, idempotencyKey });
      // A call that names no destination takes no extra step here.
      const named = ctx.headers['output-destination'] as string | undefined;
      const destination = named === undefined ? undefined : await deps.destinations.forCall(principal.accountId, named, tool);
      const request: CallRequest = destination ? { ...checked, destination } : checked;
      // Only a capture tool's call that asks for it goes through the render cache: any other call
      // takes the ordinary path, with no extra step. A file bound for a destination is written
      // there by its call, never answered from the cache.
      const acceptedAge = tool.image && !destination ? acceptedRenderAge(ctx.get('Cache-Control') || undefined) : undefined;
      if (prefersAsync(ctx.headers.prefer)) {
        // A stored render leaves nothing to wait for: the 200 a synchronous call gets. A miss runs
        // as an asynchronous call whose worker stores its render once it succeeded.
        const hit = acceptedAge === undefined ? undefined : await deps.renders.lookup(request, acceptedAge);
        if (hit) {
          sendRender(ctx, request, hit, acceptedAge!);
          return;
        }
        sendAccepted(ctx, tool, await deps.toolCalls.callAsync(acceptedAge === undefined ? request : { ...request, cacheRender: true }));
        return;
      }
      if (acceptedAge !== undefined) {
        sendRender(ctx, request, await deps.renders.run(request, acceptedAge), acceptedAge);
        return;
      }
      const answer = await deps.toolCalls.call(request);
      ctx.state.requestId = answer.requestId;
      if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
      const { output, charged, balance } = chargedOutput(deps.metrics, tool, answer.result);
      ctx.set('X-Credits-Charged', String(charged));
      ctx.set('X-Credits-Remaining', String(balance));
      await deps.outputs.send(ctx, output);
    },
  );

  /** A render from the cache or a fresh one (stored), answered as the tool's JSON output. */
  function sendRender(ctx: Context, request: CallRequest, answer: RenderHit | RenderMiss, acceptedAge: number): void {
    const left = answer.hit ? freshFor(acceptedAge, answer.render.ageS) : acceptedAge;
    if (setRenderHeaders(ctx, answer, 'json', `private, max-age=${left}`)) return;
    ctx.type = 'application/json';
    ctx.body = answer.hit ? storedOutputJson(request.tool, answer.render) : answer.json;
  }

  // Any other method on a tool path: 405 for a known tool, 404 otherwise.
  router.all('/api/v1/tools/:tool', (ctx) => {
    knownTool(ctx.params.tool!);
    ctx.set('Allow', 'POST');
    throw new ServiceError('method_not_allowed', `Tools are called with POST, not ${ctx.method}.`);
  });

  return router;
}
