//! Render links: `GET|HEAD /api/v1/render/{lksId}/{tool}?{input}&expires=&maxAge=&signature=`,
//! answered with the image itself so `<img src>` works. The signature is the credential
//! (lib/render-link-signature.ts); the call is the account's like any other (charged iff 200, the
//! same 402, 422 and limits), through the render cache (api/render-calls.ts). Errors stay
//! problem+json.
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { findTool, type ToolDefinition, type ToolSchemas } from '../../domain/tools/index.js';
import type { LinkSecrets } from '../../domain/link-secrets.js';
import { ServiceError, type ErrorCode } from '../../contracts/errors.js';
import { RENDER_PATH, splitSignature, verifyRenderLink } from '../../lib/render-link-signature.js';
import type { TargetGuard } from '../../lib/target-guard.js';
import { freshFor, setRenderHeaders, type RenderCalls } from '../render-calls.js';
import { asQueryProblem, DEFAULT_LINK_MAX_AGE_S, readLinkQuery, type LinkQuery } from '../render-query.js';
import type { Validators } from '../validation.js';
import { ANSWER_HEADERS, headerRef, paramRef, RATE_LIMIT_HEADERS } from '../docs/openapi-parts.js';
import { RENDER_TOOL_NAMES } from '../bodies/render-links.js';
import { MAX_RENDER_AGE_S } from '../../domain/render-cache.js';
import { operation, open, type RouteOperation } from '../docs/operations.js';

export interface RenderRoutesDeps {
  linkSecrets: LinkSecrets;
  rateLimit: Middleware;
  validators: Validators;
  schemas: Map<string, ToolSchemas>;
  guard: Pick<TargetGuard, 'checkTargets'>;
  renders: RenderCalls;
}

const LINK_SECRET_ID = /^lks_[0-9A-Za-z]{22}$/;

function renderTool(name: string): ToolDefinition {
  const tool = findTool(name);
  if (!tool?.image)
    throw new ServiceError(
      'unknown_tool',
      `There is no render link for "${name}": links render website-screenshot, html-to-image and qr-generate.`,
    );
  return tool;
}

const invalidSignature = (detail: string) => new ServiceError('invalid_signature', detail);

export function renderRoutes(deps: RenderRoutesDeps): Router {
  const router = new Router();

  /** The link's account, once its signature holds; the query read. */
  async function verified(ctx: Context): Promise<{ accountId: string; query: LinkQuery; tool: ToolDefinition }> {
    const tool = renderTool(ctx.params.tool!);
    const signed = splitSignature(ctx.querystring);
    if (!signed) throw invalidSignature('The link has no signature: its last parameter must be signature=<64 lowercase hex digits>.');
    const lksId = ctx.params.lksId!;
    const verifier = LINK_SECRET_ID.test(lksId) ? await deps.linkSecrets.verifier(lksId) : null;
    // An unknown secret, a retired one and a wrong signature are told apart only in the detail.
    if (!verifier) throw invalidSignature('The link is signed with a secret that does not exist or has been retired.');
    if (!verifyRenderLink(verifier.secret, ctx.path.slice(RENDER_PATH.length), signed.query, signed.signature)) {
      throw invalidSignature('The signature does not match this link.');
    }
    const query = readLinkQuery(signed.query, deps.schemas.get(tool.name)!.input);
    if (query.expires !== undefined && query.expires * 1000 <= Date.now()) {
      const expiredAt = new Date(query.expires * 1000).toISOString();
      throw new ServiceError('link_expired', `This link expired at ${expiredAt}.`, { expiredAt });
    }
    return { accountId: verifier.accountId, query, tool };
  }

  router.get(
    '/api/v1/render/:lksId/:tool',
    async (ctx, next) => {
      ctx.state.arrivedAt = Date.now();
      const link = await verified(ctx);
      ctx.state.link = link;
      ctx.state.principal = { accountId: link.accountId, credentialId: ctx.params.lksId, kind: 'link' };
      await next();
    },
    deps.rateLimit,
    async (ctx) => {
      const { accountId, query, tool } = ctx.state.link as Awaited<ReturnType<typeof verified>>;
      let input: Record<string, unknown>;
      try {
        input = deps.validators.validate(tool.name, query.input);
        tool.precheck?.(input);
      } catch (err) {
        throw asQueryProblem(err);
      }
      if (tool.targets) deps.guard.checkTargets(tool.targets(input));
      const request = { accountId, tool, input, arrivedAt: ctx.state.arrivedAt as number };
      const answer = await deps.renders.run(request, query.maxAgeS);
      const ageS = answer.hit ? answer.render.ageS : 0;
      // A shared cache may keep it as long as the link accepts, and never past the link's expiry.
      let left = freshFor(query.maxAgeS, ageS);
      if (query.expires !== undefined) left = Math.min(left, Math.max(0, Math.floor(query.expires - Date.now() / 1000)));
      if (setRenderHeaders(ctx, answer, 'image', `public, max-age=${left}`)) return;
      ctx.type = answer.hit ? answer.render.entry.mimeType : answer.mimeType;
      ctx.body = answer.hit ? answer.render.image : answer.image;
    },
  );

  router.all('/api/v1/render/:lksId/:tool', (ctx) => {
    renderTool(ctx.params.tool!);
    ctx.set('Allow', 'GET, HEAD');
    throw new ServiceError('method_not_allowed', `Render links are read with GET or HEAD, not ${ctx.method}.`);
  });

  return router;
}

const LINK_CODES: readonly ErrorCode[] = [
  'invalid_signature',
  'link_expired',
  'validation_failed',
  'unknown_tool',
  'method_not_allowed',
  'insufficient_credits',
  'rate_limited',
  'target_not_allowed',
  'upstream_error',
  'unavailable',
  'tool_timeout',
  'internal_error',
];

const image = { schema: { type: 'string', format: 'binary' } };

/** The operations this router serves, as the OpenAPI document lists them. */
export function renderOperations(): RouteOperation[] {
  const cacheHeaders = {
    ...ANSWER_HEADERS,
    'X-Cache': headerRef('X-Cache'),
    Age: headerRef('Age'),
    ETag: headerRef('ETag'),
    'Cache-Control': {
      description: "`public, max-age=<seconds>`: what is left of the link's `maxAge`, never past its `expires`.",
      schema: { type: 'string' },
    },
    'X-Credits-Charged': headerRef('X-Credits-Charged'),
    ...RATE_LIMIT_HEADERS,
  };
  return [
    operation('get', '/api/v1/render/{lksId}/{tool}', {
      tag: 'render-links',
      operationId: 'renderLink',
      summary: 'Open a render link',
      ...open(),
      description:
        'The image of a call of `tool` with the input in the query, answered as `image/png` or `image/jpeg` so that an `<img src>` shows it; `HEAD` answers the same headers without the image. ' +
        "The signature is the credential: see *Render links and the render cache* above. The call is the account's like any other (charged only when it answers 200; the same 402, 422 and rate limit), " +
        'unless a stored render of the same input is at most `maxAge` seconds old: then it is answered from the render cache, free (`X-Cache: HIT`, `X-Credits-Charged: 0`). ' +
        "Query values are converted by the tool's input schema (`width=800` is a number, `fullPage=true` a boolean); a bad one is 400 naming `query:<name>`.",
      parameters: [
        {
          name: 'lksId',
          in: 'path',
          required: true,
          description: 'The id of the link secret that signed the link (`lks_...`).',
          schema: { type: 'string' },
        },
        { name: 'tool', in: 'path', required: true, description: 'The tool.', schema: { type: 'string', enum: RENDER_TOOL_NAMES } },
        {
          name: 'input',
          in: 'query',
          required: false,
          style: 'form',
          explode: true,
          description: "The tool's input, one parameter per field (as in its POST body).",
          schema: { type: 'object', additionalProperties: { type: 'string' } },
        },
        {
          name: 'expires',
          in: 'query',
          required: false,
          description: 'Unix seconds after which the link answers 403 `link_expired`.',
          schema: { type: 'integer', minimum: 0 },
        },
        {
          name: 'maxAge',
          in: 'query',
          required: false,
          description: `How old a stored render may be, in seconds (default ${DEFAULT_LINK_MAX_AGE_S}, at most ${MAX_RENDER_AGE_S}; 0: always a fresh one).`,
          schema: { type: 'integer', minimum: 0, maximum: MAX_RENDER_AGE_S },
        },
        {
          name: 'signature',
          in: 'query',
          required: true,
          description:
            'Lowercase hex HMAC-SHA256 of the path after `/api/v1/render/`, `?`, and the query up to `&signature=`; the last parameter.',
          schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        },
        paramRef('If-None-Match'),
      ],
      ok: {
        '200': {
          description: 'The image. Fresh renders also carry `X-Credits-Remaining`.',
          headers: { ...cacheHeaders, 'X-Credits-Remaining': headerRef('X-Credits-Remaining') },
          content: { 'image/png': image, 'image/jpeg': image },
        },
        '304': { description: "`If-None-Match` names the stored render's ETag: not modified, free.", headers: cacheHeaders },
      },
      codes: LINK_CODES,
    }),
  ];
}
