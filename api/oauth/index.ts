//! Agents' sign-in, put together: the authorization server, the bearer check `/mcp` uses for its
//! tokens, and the routers (the server's endpoints and consent page, the account's connected apps).
import type { Middleware } from 'koa';
import type { Db } from 'mongodb';
import type { ProviderContext } from 'oidc-provider';
import type { Identity } from '../../domain/identity/index.js';
import { createConnections } from '../../domain/oauth/connections.js';
import { SERVICE_ACTOR } from '../../domain/audit/index.js';
import type { Config } from '../../lib/config.js';
import type { Logger } from '../../lib/logger.js';
import { createGuardedHttp } from '../../lib/guarded-http.js';
import type { TargetGuard } from '../../lib/target-guard.js';
import type { Authenticator } from '../auth.js';
import { mcpResource } from '../mcp/protected-resource.js';
import { connectedAppRoutes } from '../routes/connected-apps.js';
import { shippedDashboard } from '../routes/dashboard.js';
import { oauthRoutes } from '../routes/oauth.js';
import { createAuthorizationServer } from './authorization-server.js';
import { createOAuthBearer } from './bearer.js';

const CONNECTIONS_ENDING = Symbol('connections ending');
/** The connections a request to the library ended, which its answer waits for. */
const endingIn = (ctx: ProviderContext) => (ctx.state[CONNECTIONS_ENDING] ??= []) as Promise<void>[];

export interface AgentSignInDeps {
  db: Db;
  config: Pick<Config, 'publicBaseUrl' | 'secretKey' | 'trustedProxyHops'>;
  guard: TargetGuard;
  identity: Identity;
  auth: Authenticator;
  rateLimit: Middleware;
  perClient: Middleware;
  log: Logger;
}

export function createAgentSignIn(deps: AgentSignInDeps) {
  const baseUrl = deps.config.publicBaseUrl;
  const resource = mcpResource(baseUrl);
  const connections = createConnections(deps.db);
  const provider = createAuthorizationServer({
    db: deps.db,
    baseUrl,
    secretKey: deps.config.secretKey,
    resource,
    proxy: deps.config.trustedProxyHops > 0,
    http: createGuardedHttp({ guard: deps.guard }),
  });
  // Why a token request was refused (the answer says only `invalid_grant`), for the operator.
  provider.on('grant.error', (_ctx, err: Error & { error_detail?: string }) =>
    deps.log.warn({ err: { name: err.name, detail: err.error_detail } }, 'token request refused'),
  );
  provider.on('server_error', (_ctx, err) =>
    deps.log.error({ err: { name: err.name, message: err.message } }, 'authorization server error'),
  );
  // The library ends a grant itself when a used refresh token comes back (a theft, or a client's
  // bug) and when the app revokes its refresh token: the account's list and audit log say so too,
  // before the answer leaves (a client told its grant ended must find it ended in the list).
  provider.on('grant.revoked', (ctx: ProviderContext, grantId: string) => {
    const reason = ctx.oidc?.route === 'revocation' ? 'the app revoked its refresh token' : 'a used refresh token was presented again';
    const ending = connections
      .ended(grantId, reason, SERVICE_ACTOR)
      .catch((err: Error) => deps.log.error({ err: { message: err.message } }, 'could not end a connection'));
    endingIn(ctx).push(ending);
  });
  provider.use(async (ctx, next) => {
    await next();
    await Promise.all(endingIn(ctx));
  });
  return {
    bearer: createOAuthBearer({ provider, connections, roleOf: deps.identity.memberships.roleOf, resource }),
    routers: () => [
      oauthRoutes({
        baseUrl,
        provider,
        connections,
        identity: deps.identity,
        auth: deps.auth,
        perClient: deps.perClient,
        // The consent page wears the dashboard's stylesheet.
        stylesheet: `/dashboard/assets/${shippedDashboard().version}/dashboard.css`,
        log: deps.log,
      }),
      connectedAppRoutes({ auth: deps.auth, rateLimit: deps.rateLimit, connections }),
    ],
  };
}
