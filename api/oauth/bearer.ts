//! An OAuth access token presented to `/mcp`, as a principal: the token must be live in the
//! authorization server's store, issued for `/mcp` (its audience; a token for any other resource
//! is refused), and of a connection the account has not revoked; the agent then acts on the
//! connection's account with the consenting member's role as it is now (removed from the
//! account, refused). One read each, nothing cached: a revocation holds at once on every replica.
import type Provider from 'oidc-provider';
import { ServiceError } from '../../contracts/errors.js';
import type { Connections } from '../../domain/oauth/index.js';
import type { Role } from '../../domain/membership/index.js';
import type { Principal } from '../auth.js';

export interface OAuthBearerDeps {
  provider: Provider;
  connections: Pick<Connections, 'live' | 'touch'>;
  roleOf(accountId: string, userId: string): Promise<Role | null>;
  /** The resource tokens must be for: `<baseUrl>/mcp`. */
  resource: string;
}

/** The refusal of a token (`/mcp` adds the challenge that says where to get another). */
const invalidToken = (detail: string) => new ServiceError('unauthorized', detail);

const audiences = (aud: string | string[] | undefined) => (aud === undefined ? [] : Array.isArray(aud) ? aud : [aud]);

export function createOAuthBearer(deps: OAuthBearerDeps) {
  return {
    async authenticate(token: string): Promise<Principal> {
      const found = await deps.provider.AccessToken.find(token);
      if (!found || found.isExpired) throw invalidToken('The access token is unknown, expired or revoked.');
      if (!audiences(found.aud).includes(deps.resource)) throw invalidToken(`The access token is not for ${deps.resource}.`);
      const connection = await deps.connections.live(found.grantId);
      if (!connection) throw invalidToken('The app this token was issued to has been disconnected from the account.');
      const role = await deps.roleOf(connection.accountId, connection.userId);
      if (!role) throw invalidToken('The person who connected this app is no longer a member of the account.');
      deps.connections.touch(connection);
      return {
        accountId: connection.accountId,
        credentialId: connection._id,
        kind: 'oauth',
        prefix: `oauth:${connection.clientName}`,
        userId: connection.userId,
        role,
      };
    },
  };
}

export type OAuthBearer = ReturnType<typeof createOAuthBearer>;
