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
import { ServiceError, type ErrorCode } from '../../contracts/errors.js';
import type { TargetGuard } from '../../lib/target-guard.js';
import { parseIdempotencyKey, waitLimit, type ToolCalls } from '../tool-calls.js';
import { prefersAsync, sendAccepted } from '../respond-async.js';
import type { Validators } from '../validation.js';
import { chargedOutput } from '../call-outcome.js';
import { ANSWER_HEADERS, headerRef, json, paramRef, pascal, RATE_LIMIT_HEADERS } from '../docs/openapi-parts.js';
import { embedToolSchema, mediaExamples, open, operation, plain, type RouteOperation } from '../docs/operations.js';
import { ref, type JsonSchema } from '../docs/schema-parts.js';
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

/** Codes every tool call can answer with; a tool's definition adds its own (`failures`). */
const TOOL_CALL_CODES: readonly ErrorCode[] = [
  'invalid_json',
  'validation_failed',
  'unauthorized',
  'insufficient_credits',
  'key_credit_limit',
  'forbidden',
  'tool_not_allowed',
  'ip_not_allowed',
  'idempotency_conflict',
  // A repeat of a call its MCP client cancelled: REST and MCP share idempotency keys.
  'cancelled',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'unavailable',
  'tool_timeout',
  'internal_error',
];

/** Headers of a capture's answer through the render cache (a `POST` with `Cache-Control`). */
const RENDER_CACHE_HEADERS = {
  'X-Cache': headerRef('X-Cache'),
  Age: headerRef('Age'),
  ETag: headerRef('ETag'),
  'Cache-Control': {
    description: 'Through the render cache: `private, max-age=<seconds>`, what is left of the age the request accepted.',
    schema: { type: 'string' },
  },
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Each catalogue tool's operation, and its input and output schemas as the document's components. */
export function toolOperations(schemas: Map<string, ToolSchemas>): { operations: RouteOperation[]; schemas: Record<string, JsonSchema> } {
  const components: Record<string, JsonSchema> = {};
  const operations = [...CATALOGUE.values()].map((tool) => {
    const s = schemas.get(tool.name);
    if (!s) throw new Error(`no schemas for tool ${tool.name}`);
    const input = `${pascal(tool.name)}Input`;
    const output = `${pascal(tool.name)}Output`;
    components[input] = embedToolSchema(s.input, input) as JsonSchema;
    components[output] = embedToolSchema(s.output, output) as JsonSchema;
    const stored = tool.fileField ? `${pascal(tool.name)}StoredOutput` : undefined;
    if (stored) components[stored] = storedOutputSchema(components[output]!, tool.fileField!, stored);
    return operation('post', `/api/v1/tools/${tool.name}`, {
      tag: tool.group,
      operationId: tool.name,
      summary: `${tool.name} · ${plural(tool.cost, 'credit')}`,
      description: toolDescription(tool, s.input),
      'x-credits': tool.cost,
      security: [{ apiKey: [] }],
      parameters: [
        paramRef('Idempotency-Key'),
        paramRef('Prefer'),
        ...(stored ? [paramRef('Output-Destination')] : []),
        ...(tool.image ? [paramRef('Cache-Control'), paramRef('If-None-Match')] : []),
      ],
      // The answer with Output-Destination. Not a second schema of the 200 (an anyOf there makes
      // generated clients wrap every tool's output); named here and in the 200's description.
      ...(stored ? { 'x-stored-output': ref(stored) } : {}),
      requestBody: { required: true, content: json(ref(input), mediaExamples(s.input)) },
      ok: {
        '202': {
          description:
            'With `Prefer: respond-async`: the call runs; read it at `Location`. Nothing is charged yet.' +
            (tool.image
              ? ' With `Cache-Control`, a stored render is answered 200 at once instead, and a fresh one is stored once the call succeeded.'
              : ''),
          headers: {
            ...ANSWER_HEADERS,
            Location: headerRef('Location'),
            'Preference-Applied': headerRef('Preference-Applied'),
            'Retry-After': headerRef('Retry-After'),
            ...RATE_LIMIT_HEADERS,
            'Idempotent-Replayed': headerRef('Idempotent-Replayed'),
          },
          content: json(ref('CallAccepted')),
        },
        '200': {
          description: stored
            ? `The tool's output, unwrapped. The call is charged. With \`Output-Destination\` it is \`${stored}\` instead: \`stored\` in place of \`${tool.fileField}\`.`
            : "The tool's output, unwrapped. The call is charged.",
          headers: {
            ...ANSWER_HEADERS,
            'X-Credits-Charged': headerRef('X-Credits-Charged'),
            'X-Credits-Remaining': headerRef('X-Credits-Remaining'),
            ...RATE_LIMIT_HEADERS,
            'Idempotent-Replayed': headerRef('Idempotent-Replayed'),
            ...(tool.image ? RENDER_CACHE_HEADERS : {}),
          },
          content: json(ref(output), mediaExamples(s.output)),
        },
        ...(tool.image
          ? {
              '304': {
                description: "With `Cache-Control` and `If-None-Match` naming the stored render's ETag: not modified, free.",
                headers: { ...ANSWER_HEADERS, ...RENDER_CACHE_HEADERS },
              },
            }
          : {}),
      },
      codes: [...TOOL_CALL_CODES, ...tool.failures, ...(stored ? ['destination_error' as const] : [])],
    });
  });
  return { operations, schemas: components };
}

/** The output of a call with `Output-Destination`: `stored` in place of the file's base64, every other field as it was. */
function storedOutputSchema(output: JsonSchema, field: string, title: string): JsonSchema {
  const { [field]: _file, ...properties } = output.properties as Record<string, JsonSchema>;
  const required = (output.required as string[]).filter((name) => name !== field);
  return { ...output, title, properties: { stored: ref('StoredFile'), ...properties }, required: ['stored', ...required] };
}

function toolDescription(tool: ToolDefinition, input: JsonSchema): string {
  const limit = tool.maxBodyBytes ?? DEFAULT_BODY_LIMIT;
  const parts = [
    typeof input.description === 'string' ? input.description : '',
    `**Cost: ${plural(tool.cost, 'credit')}**, charged only when the call answers 200; any other answer leaves the balance as it was.`,
    `The request body may be up to ${limit / (1024 * 1024)} MiB. The call answers \`504 tool_timeout\` when the tool needs more than ${tool.timeoutMs / 1000} s.`,
  ];
  if (tool.fileField) {
    parts.push(
      "With `Output-Destination: dst_...` the file goes to that destination's bucket, at `{prefix}/{requestId}/0.{ext}`, and the answer carries `stored` " +
        `in place of \`${tool.fileField}\`; the call is charged only once the bucket accepted the file.`,
    );
  }
  if (tool.secretFields?.length) {
    parts.push(
      `${tool.secretFields.map((f) => `\`${f}\``).join(', ')} ${tool.secretFields.length === 1 ? 'is' : 'are'} used for this call only: never stored or logged.`,
    );
  }
  return parts.filter(Boolean).join('\n\n');
}

/** The catalogue, listed among the service's operations. */
export function catalogueOperations(): RouteOperation[] {
  return [
    operation('get', '/api/v1/tools', {
      tag: 'service',
      operationId: 'listTools',
      ...open(),
      summary: 'List the tools',
      description: 'The catalogue: every tool with its group, cost, path and input schema.',
      ok: plain('The catalogue.', json(ref('Catalogue'))),
      codes: ['internal_error'],
    }),
  ];
}
