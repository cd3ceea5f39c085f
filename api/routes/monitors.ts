//! The account's monitors (`Authorization: Bearer <ownerToken>` or a member's session): create,
//! list, read, change (pause and resume), delete, run one now, accept a visual monitor's baseline,
//! read its runs; and a run's diff image by its signed link, which needs no credential. HTTP only:
//! what each request does is the monitor service (`domain/monitors/service.ts`).
import { setSignedFileHeaders } from '../signed-file-links.js';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { CreateMonitorBody, invalidRequest, type MonitorService, UpdateMonitorBody } from '../../domain/monitors/index.js';
import { ServiceError } from '../../contracts/errors.js';
import { ownerActing } from '../audit-context.js';
import type { Authenticator } from '../auth.js';
import { readJsonObject } from '../body.js';
import { MONITOR_DIFFS_PATH, type MonitorDiffLinks } from '../monitor-diff-links.js';
import { cursorOf, encodeCursor, parseLimit } from '../paging.js';
import { compileBodySchema } from '../validation.js';

export const MONITORS_DEFAULT_LIMIT = 20;
export const MONITORS_MAX_LIMIT = 100;

export const monitorLocation = (id: string) => `/api/v1/account/monitors/${encodeURIComponent(id)}`;

export interface MonitorRouteDeps {
  auth: Authenticator;
  rateLimit: Middleware;
  monitors: MonitorService;
  diffLinks: MonitorDiffLinks;
}

export function monitorRoutes(deps: MonitorRouteDeps): Router {
  const router = new Router();
  const { monitors } = deps;
  // Refused as `invalid_request`, as every other problem of a monitor's definition.
  const createBody = compileBodySchema(CreateMonitorBody, invalidRequest);
  const updateBody = compileBodySchema(UpdateMonitorBody, invalidRequest);
  const byOwner = [deps.auth.require('owner_token'), deps.rateLimit];
  const prefix = '/api/v1/account/monitors';
  const diffUrl = (diffKey: string) => deps.diffLinks.linkTo(diffKey);

  router.get(prefix, ...byOwner, async (ctx) => {
    const limit = parseLimit(ctx.query.limit, MONITORS_DEFAULT_LIMIT, MONITORS_MAX_LIMIT);
    const page = await monitors.list(ctx.state.principal.accountId, limit, cursorOf(ctx.query));
    const last = page.rows.at(-1);
    ctx.body = { items: page.views, nextCursor: page.more && last ? encodeCursor(last.createdAt, last._id) : null };
  });

  router.post(prefix, ...byOwner, async (ctx) => {
    const body = createBody(await readJsonObject(ctx));
    const created = await monitors.create(ctx.state.principal.accountId, body, ownerActing(ctx));
    ctx.status = 201;
    ctx.set('Location', monitorLocation(created.id));
    ctx.body = created;
  });

  router.get(`${prefix}/:id`, ...byOwner, async (ctx) => {
    ctx.body = await monitors.get(ctx.state.principal.accountId, ctx.params.id!);
  });

  router.patch(`${prefix}/:id`, ...byOwner, async (ctx) => {
    const body = updateBody(await readJsonObject(ctx));
    ctx.body = await monitors.update(ctx.state.principal.accountId, ctx.params.id!, body, ownerActing(ctx));
  });

  router.delete(`${prefix}/:id`, ...byOwner, async (ctx) => {
    await monitors.remove(ctx.state.principal.accountId, ctx.params.id!, ownerActing(ctx));
    ctx.status = 204;
  });

  router.post(`${prefix}/:id/run`, ...byOwner, async (ctx) => {
    const runId = await monitors.runNow(ctx.state.principal.accountId, ctx.params.id!);
    ctx.status = 202;
    ctx.body = { runId };
  });

  router.post(`${prefix}/:id/baseline`, ...byOwner, async (ctx) => {
    ctx.body = await monitors.acceptBaseline(ctx.state.principal.accountId, ctx.params.id!);
  });

  router.get(`${prefix}/:id/runs`, ...byOwner, async (ctx) => {
    const limit = parseLimit(ctx.query.limit);
    const page = await monitors.runs(ctx.state.principal.accountId, ctx.params.id!, limit, cursorOf(ctx.query), diffUrl);
    const last = page.rows.at(-1);
    ctx.body = { items: page.views, nextCursor: page.more && last ? encodeCursor(last.at, last._id) : null };
  });

  // A diff image by its link: the signature opens it for the link's hour, for an <img> anywhere.
  router.get(`${MONITOR_DIFFS_PATH}:file`, async (ctx) => {
    const image = await deps.diffLinks.open(ctx.params.file!, ctx.querystring);
    setSignedFileHeaders(ctx, image.expiresAt);
    ctx.type = 'image/png';
    ctx.body = image.png;
  });
  router.all(`${MONITOR_DIFFS_PATH}:file`, (ctx) => {
    ctx.set('Allow', 'GET, HEAD');
    throw new ServiceError('method_not_allowed', `Diff links are read with GET or HEAD, not ${ctx.method}.`);
  });

  return router;
}
