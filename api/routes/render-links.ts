//! The owner's side of render links and the render cache (`Authorization: Bearer <ownerToken>`):
//! link signing secrets (create, shown once; list; retire), a link signed for the dashboard, the
//! cache's hits per day, and emptying the cache.
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { findTool } from '../../domain/tools/index.js';
import { publicLinkSecret, MAX_LIVE_LINK_SECRETS, type LinkSecrets } from '../../domain/link-secrets.js';
import type { RenderCache } from '../../domain/render-cache.js';
import { ServiceError } from '../../contracts/errors.js';
import { buildRenderLink } from '../../lib/render-link-signature.js';
import { ownerActing } from '../audit-context.js';
import type { Authenticator } from '../auth.js';
import { readJsonObject } from '../body.js';
import { NoBody } from '../bodies/labels.js';
import { CreateRenderLinkBody } from '../bodies/render-links.js';
import { compileBodySchema, type Validators } from '../validation.js';

export interface RenderLinkRoutesDeps {
  baseUrl: string;
  auth: Authenticator;
  rateLimit: Middleware;
  linkSecrets: LinkSecrets;
  renderCache: RenderCache;
  validators: Validators;
}

export function renderLinkRoutes(deps: RenderLinkRoutesDeps): Router {
  const router = new Router({ prefix: '/api/v1/account' });
  const noBody = compileBodySchema(NoBody);
  const linkBody = compileBodySchema(CreateRenderLinkBody);

  router.use(['/link-secrets', '/render-links', '/render-cache'], deps.auth.require('owner_token'), deps.rateLimit);

  router.post('/link-secrets', async (ctx) => {
    noBody(await readJsonObject(ctx, undefined, { allowEmpty: true }));
    const created = await deps.linkSecrets.create(ctx.state.principal.accountId, ownerActing(ctx));
    if (!created)
      throw new ServiceError('already_exists', `The account already has ${MAX_LIVE_LINK_SECRETS} live link secrets: retire one first.`);
    ctx.status = 201;
    ctx.body = { id: created.doc._id, secret: created.secret, createdAt: created.doc.createdAt };
  });

  router.get('/link-secrets', async (ctx) => {
    ctx.body = (await deps.linkSecrets.list(ctx.state.principal.accountId)).map(publicLinkSecret);
  });

  router.delete('/link-secrets/:id', async (ctx) => {
    const retired = await deps.linkSecrets.retire(ctx.state.principal.accountId, ctx.params.id!, ownerActing(ctx));
    if (!retired) throw new ServiceError('not_found', `There is no link secret ${ctx.params.id} on this account.`);
    ctx.body = publicLinkSecret(retired);
  });

  router.post('/render-links', async (ctx) => {
    const body = linkBody(await readJsonObject(ctx));
    const tool = findTool(body.tool)!;
    // The input must make a valid call now; the link carries it as given (defaults stay implied).
    const checked = deps.validators.validate(tool.name, structuredClone(body.input));
    tool.precheck?.(checked);
    const signer = await deps.linkSecrets.signer(ctx.state.principal.accountId, body.secretId);
    if (!signer) {
      throw new ServiceError(
        'not_found',
        body.secretId
          ? `There is no live link secret ${body.secretId} on this account.`
          : 'The account has no live link secret: create one with POST /api/v1/account/link-secrets.',
      );
    }
    const expires = body.expiresIn === undefined ? undefined : Math.floor(Date.now() / 1000) + body.expiresIn;
    const url = buildRenderLink({
      baseUrl: deps.baseUrl,
      secretId: signer.id,
      secret: signer.secret,
      tool: tool.name,
      input: body.input,
      expires,
      maxAge: body.maxAge,
    });
    ctx.body = { url, secretId: signer.id, expiresAt: expires === undefined ? null : new Date(expires * 1000) };
  });

  router.get('/render-cache', async (ctx) => {
    ctx.body = { days: await deps.renderCache.days(ctx.state.principal.accountId) };
  });

  router.delete('/render-cache', async (ctx) => {
    ctx.body = { deleted: await deps.renderCache.purge(ctx.state.principal.accountId) };
  });

  return router;
}
