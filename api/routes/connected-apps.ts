//! The account's connected apps (agents that signed in through OAuth, `domain/oauth/connections.ts`):
//! the list, and disconnecting one, which ends its tokens at once on every replica. For the owner
//! token and members' sessions, under the role table (area `connected-apps`).
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { connectionView, type Connections } from '../../domain/oauth/index.js';
import { ServiceError } from '../../contracts/errors.js';
import { ownerActing } from '../audit-context.js';
import type { Authenticator } from '../auth.js';
import { json } from '../docs/openapi-parts.js';
import { operation, OWNER_CODES, owner, withRateLimit, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

export interface ConnectedAppRouteDeps {
  auth: Authenticator;
  rateLimit: Middleware;
  connections: Pick<Connections, 'list' | 'revoke'>;
}

const PREFIX = '/api/v1/account/connected-apps';

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

/** The operations `connectedAppRoutes` serves, as the OpenAPI document lists them. */
export function connectedAppOperations(): RouteOperation[] {
  return [
    operation('get', PREFIX, {
      tag: 'account',
      operationId: 'listConnectedApps',
      summary: 'List connected apps',
      ...owner(),
      description:
        'The apps (AI agents, MCP clients) members connected to the account through OAuth, newest first: each acts on the account with the role of the member who connected it, as that role is now. docs/MCP.md tells how an app connects.',
      ok: withRateLimit('The connected apps.', json({ type: 'array', items: ref('ConnectedApp') })),
      codes: OWNER_CODES,
    }),
    operation('delete', `${PREFIX}/{id}`, {
      tag: 'account',
      operationId: 'disconnectApp',
      summary: 'Disconnect an app',
      ...owner(),
      description:
        "Ends the app's access: its tokens are refused from the next request on, on every replica, and it must ask a member again. Recorded in the audit log (`oauth_app.revoked`).",
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: "The connected app's id." }],
      ok: withRateLimit('Disconnected.', undefined, '204'),
      codes: [...OWNER_CODES, 'not_found'],
    }),
  ];
}
