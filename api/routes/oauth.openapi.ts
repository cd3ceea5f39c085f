//! The OpenAPI operations of the OAuth authorization server that MCP clients sign in through (`api/routes/oauth.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { RESOURCE_METADATA_ROOT } from './oauth.js';
import { json } from '../docs/openapi-parts.js';
import { open, operation, plain, type RouteOperation } from '../docs/operations.js';
import { RESOURCE_METADATA_PATH } from '../mcp/protected-resource.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function oauthOperations(): RouteOperation[] {
  const spec = {
    tag: 'service' as const,
    ...open(),
    summary: 'MCP protected resource metadata',
    description:
      'RFC 9728: what `/mcp` is, the authorization server that issues its tokens (this service: its endpoints are in its own metadata, `/.well-known/oauth-authorization-server`), and the scope. A 401 from `/mcp` points here in its `WWW-Authenticate`. docs/MCP.md tells how an agent signs in.',
    ok: plain('The metadata.', json({ type: 'object' })),
    codes: ['internal_error' as const],
  };
  return [
    operation('get', RESOURCE_METADATA_PATH, { ...spec, operationId: 'mcpResourceMetadata' }),
    operation('get', RESOURCE_METADATA_ROOT, { ...spec, operationId: 'resourceMetadata', summary: 'Protected resource metadata' }),
  ];
}
