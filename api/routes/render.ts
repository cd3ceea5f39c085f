//! Render links: `GET|HEAD /api/v1/render/{lksId}/{tool}?{input}&expires=&maxAge=&signature=`,
//! answered with the image itself so `<img src>` works. The signature is the credential
//! (lib/render-link-signature.ts); the call is the account's like any other (charged iff 200, the
//! same 402, 422 and limits), through the render cache (api/render-calls.ts). Errors stay
//! problem+json.
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { findTool, type ToolDefinition, type ToolSchemas } from '../../domain/tools/index.js';
import type { LinkSecrets } from '../../domain/link-secrets.js';
import { ServiceError } from '../../contracts/errors.js';
import { RENDER_PATH, splitSignature, verifyRenderLink } from '../../lib/render-link-signature.js';
import type { TargetGuard } from '../../lib/target-guard.js';
import { freshFor, setRenderHeaders, type RenderCalls } from '../render-calls.js';
import { asQueryProblem, readLinkQuery, type LinkQuery } from '../render-query.js';
import type { Validators } from '../validation.js';

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
