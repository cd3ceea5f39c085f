//! The OpenAPI operations of the MCP server (`api/routes/mcp.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { MCP_PATH } from '../mcp/protected-resource.js';
import { RESULT_FILE, RESULTS_PATH, RESULT_LINK_TTL_S } from '../mcp/result-links.js';
import { json } from '../docs/openapi-parts.js';
import { signedLinkParameters, operation, plain, type RouteOperation } from '../docs/operations.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function mcpOperations(): RouteOperation[] {
  return [
    operation('get', `${RESULTS_PATH}{file}`, {
      tag: 'service',
      operationId: 'mcpResult',
      summary: "An MCP call's file",
      security: [],
      description:
        `The file an MCP tool call made (a PDF, an image), by the \`resource_link\` of its result: the link's signature is the credential, for ${RESULT_LINK_TTL_S / 60} minutes. ` +
        'Served under `Content-Security-Policy: sandbox`. docs/MCP.md tells which calls answer one.',
      parameters: signedLinkParameters(RESULT_FILE, 'file'),
      ok: plain('The file.', {
        'application/pdf': { schema: { type: 'string', format: 'binary' } },
        'image/*': { schema: { type: 'string', format: 'binary' } },
      }),
      codes: ['invalid_signature', 'link_expired', 'not_found', 'unavailable', 'internal_error'],
    }),
    operation('post', MCP_PATH, {
      tag: 'service',
      operationId: 'mcp',
      summary: 'Model Context Protocol',
      security: [{ apiKey: [] }],
      description:
        'The tools for AI agents over MCP Streamable HTTP (JSON-RPC 2.0, answered as JSON or as `text/event-stream`), authenticated by an API key as a bearer token. ' +
        '`initialize` is answered with an `Mcp-Session-Id`: a record bound to the key that opened it, never a credential (every message still sends its key), answered by any replica. ' +
        "A message with an unknown session id (ended, unused for 24 hours, or another key's) is 404 `not_found`; one without is served too. " +
        "The session scopes `notifications/cancelled`: a cancelled call's workflow is cancelled and refunded (unless it was charged first), and its request gets no response. `GET` answers 405. " +
        'A refused tool call is a tool result with `isError: true`, not an HTTP error. ' +
        "Every message takes from the key's and the account's rate as a REST call does: a message other than a tool call over it is 429 `rate_limited`. " +
        'A request whose `Origin` is not this service is refused with 403 `csrf_rejected`. docs/MCP.md tells how to connect a client.',
      requestBody: { required: true, content: json({ type: 'object', description: 'A JSON-RPC 2.0 request or notification.' }) },
      ok: {
        ...plain('A JSON-RPC answer, as JSON or as a stream of events.', json({ type: 'object' })),
        '202': { description: 'A notification or a response from the client, accepted.' },
      },
      codes: [
        'unauthorized',
        'forbidden',
        'ip_not_allowed',
        'csrf_rejected',
        'not_found',
        'not_acceptable',
        'rate_limited',
        'invalid_json',
        'payload_too_large',
        'unsupported_media_type',
        'unavailable',
        'internal_error',
      ],
    }),
    operation('delete', MCP_PATH, {
      tag: 'service',
      operationId: 'endMcpSession',
      summary: 'End an MCP session',
      security: [{ apiKey: [] }],
      description:
        "Ends the session named by `Mcp-Session-Id`, which must be this key's: its messages are 404 after, and a client initializes a new one. " +
        "Another key's session, or an ended one, is 404 `not_found`, as if it never was.",
      ok: plain('Ended.', undefined, '204'),
      codes: ['unauthorized', 'forbidden', 'ip_not_allowed', 'csrf_rejected', 'not_found', 'unavailable', 'internal_error'],
    }),
  ];
}
