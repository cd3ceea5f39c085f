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
import { json } from '../docs/openapi-parts.js';
import { operation, owner, withRateLimit, linked, example, OWNER_CODES, BODY_CODES, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

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

/** The operations this router serves, as the OpenAPI document lists them. */
export function renderLinkOperations(): RouteOperation[] {
  return [
    operation('post', '/api/v1/account/link-secrets', {
      tag: 'render-links',
      operationId: 'createLinkSecret',
      summary: 'Create a link signing secret',
      ...owner(),
      description:
        `A new secret that signs render links (\`lksec_...\`), shown only in this answer. Up to ${MAX_LIVE_LINK_SECRETS} may be live at once, ` +
        'so a secret is rotated by creating its successor, moving links to it, then retiring it. The body may be left out.',
      ok: linked(withRateLimit('The new secret.', json(ref('NewLinkSecret')), '201'), { retireLinkSecret: { id: '$response.body#/id' } }),
      codes: [...OWNER_CODES, ...BODY_CODES, 'already_exists'],
    }),
    operation('get', '/api/v1/account/link-secrets', {
      tag: 'render-links',
      operationId: 'listLinkSecrets',
      summary: 'List link signing secrets',
      ...owner(),
      description: 'Every link secret of the account, retired ones included, newest first, without the secrets.',
      ok: withRateLimit('The secrets.', json({ type: 'array', items: ref('LinkSecret') })),
      codes: OWNER_CODES,
    }),
    operation('delete', '/api/v1/account/link-secrets/{id}', {
      tag: 'render-links',
      operationId: 'retireLinkSecret',
      summary: 'Retire a link signing secret',
      ...owner(),
      description:
        'Links signed with it answer 401 `invalid_signature` within one second, on every API instance. Retiring again answers the same.',
      parameters: [{ name: 'id', in: 'path', required: true, description: 'Link secret id (`lks_...`).', schema: { type: 'string' } }],
      ok: withRateLimit('The secret, retired.', json(ref('LinkSecret'))),
      codes: [...OWNER_CODES, 'not_found'],
    }),
    operation('post', '/api/v1/account/render-links', {
      tag: 'render-links',
      operationId: 'createRenderLink',
      summary: 'Sign a render link',
      ...owner(),
      description:
        'A render link for the tool and input, signed with the newest live link secret (or `secretId`). The input is checked as a call would check it (400 naming each bad field). ' +
        'Answers 404 when the account has no live link secret.',
      requestBody: {
        required: true,
        content: json(
          CreateRenderLinkBody,
          example({ tool: 'qr-generate', input: { text: 'https://example.com/', size: 256 }, expiresIn: 86400 }),
        ),
      },
      ok: withRateLimit('The link.', json(ref('RenderLink'))),
      codes: [...OWNER_CODES, ...BODY_CODES, 'not_found'],
    }),
    operation('get', '/api/v1/account/render-cache', {
      tag: 'render-links',
      operationId: 'getRenderCacheUsage',
      summary: 'Render cache hits per day',
      ...owner(),
      description:
        'The days (UTC) of the last 31 with render cache hits, newest first: how many, and the credits they did not cost. The usage answer (`GET /api/v1/account/usage`) carries the same days, for any period.',
      ok: withRateLimit('The days.', json(ref('RenderCacheUsage'))),
      codes: OWNER_CODES,
    }),
    operation('delete', '/api/v1/account/render-cache', {
      tag: 'render-links',
      operationId: 'purgeRenderCache',
      summary: 'Empty the render cache',
      ...owner(),
      description: 'Every stored render of the account is forgotten at once: the next call of each input renders afresh (and is charged).',
      ok: withRateLimit('How many stored renders were dropped.', json(ref('RenderCachePurged'))),
      codes: OWNER_CODES,
    }),
  ];
}
