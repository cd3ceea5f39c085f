//! The account's connected apps (agents that signed in through OAuth, `domain/oauth/connections.ts`):
//! the list, and disconnecting one, which ends its tokens at once on every replica. For the owner
//! token and members' sessions, under the role table (area `connected-apps`).
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { connectionView, type Connections } from '../../domain/oauth/index.js';
import { ServiceError } from '../../contracts/errors.js';
import { ownerActing } from '../audit-context.js';
import type { Authenticator } from '../auth.js';

export interface ConnectedAppRouteDeps {
  auth: Authenticator;
  rateLimit: Middleware;
  connections: Pick<Connections, 'list' | 'revoke'>;
}

export const PREFIX = '/api/v1/account/connected-apps';

export function connectedAppRoutes(deps: ConnectedAppRouteDeps): Router {
  const router = new Router({ prefix: PREFIX });
  router.use(deps.auth.require('owner_token'), deps.rateLimit);

  router.get('/', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = (await deps.connections.list(ctx.state.principal.accountId)).map(connectionView);
  });

  router.delete('/:id', async (ctx) => {
    const revoked = await deps.connections.revoke(ctx.state.principal.accountId, ctx.params.id!, ownerActing(ctx));
    if (!revoked) throw new ServiceError('not_found', 'The account has no such connected app.');
    ctx.status = 204;
  });

  return router;
}
