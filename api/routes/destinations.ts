//! The account's destinations (`Authorization: Bearer <ownerToken>`): create (after a test upload
//! the bucket must accept), list, read and delete. HTTP only: what each request does is the
//! destination service (`domain/destinations/service.ts`).
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { DestinationService } from '../../domain/destinations/index.js';
import { ownerActing } from '../audit-context.js';
import type { Authenticator } from '../auth.js';
import { readJsonObject } from '../body.js';
import { CreateDestinationBody } from '../bodies/destinations.js';
import { compileBodySchema } from '../validation.js';

export interface DestinationRouteDeps {
  auth: Authenticator;
  rateLimit: Middleware;
  destinations: DestinationService;
}

export function destinationRoutes(deps: DestinationRouteDeps): Router {
  const router = new Router({ prefix: '/api/v1/account/destinations' });
  const { destinations } = deps;
  const createBody = compileBodySchema(CreateDestinationBody);

  router.use(deps.auth.require('owner_token'), deps.rateLimit);

  router.get('/', async (ctx) => {
    ctx.body = await destinations.list(ctx.state.principal.accountId);
  });

  router.post('/', async (ctx) => {
    const body = createBody(await readJsonObject(ctx));
    ctx.status = 201;
    ctx.body = await destinations.create(ctx.state.principal.accountId, body, ownerActing(ctx));
  });

  router.get('/:id', async (ctx) => {
    ctx.body = await destinations.get(ctx.state.principal.accountId, ctx.params.id!);
  });

  router.delete('/:id', async (ctx) => {
    await destinations.remove(ctx.state.principal.accountId, ctx.params.id!, ownerActing(ctx));
    ctx.status = 204;
  });

  return router;
}
