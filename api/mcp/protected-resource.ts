//! `/mcp` as an OAuth protected resource (RFC 9728): its path, the resource indicator tokens name
//! (RFC 8707), its metadata document and the `WWW-Authenticate` challenge that points a client there.
import { MCP_SCOPE } from '../oauth/authorization-server.js';

export const MCP_PATH = '/mcp';

/** Where the protected resource metadata of `/mcp` is (RFC 9728's path for a resource with a path). */
export const RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

/** The resource `/mcp` is, as tokens name it. */
export const mcpResource = (baseUrl: string) => `${baseUrl}${MCP_PATH}`;

/** RFC 9728's document for `/mcp`: the authorization server is this service. */
export function resourceMetadata(baseUrl: string) {
  return {
    resource: mcpResource(baseUrl),
    authorization_servers: [baseUrl],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'Utility Tools MCP server',
    resource_documentation: `${baseUrl}/docs`,
  };
}

/** The `WWW-Authenticate` of a 401 from `/mcp` (RFC 6750, RFC 9728): where a client learns how to get a token. */
export const mcpChallenge = (baseUrl: string, error?: string) =>
  `Bearer resource_metadata="${baseUrl}${RESOURCE_METADATA_PATH}", scope="${MCP_SCOPE}"${error ? `, error="${error}"` : ''}`;
