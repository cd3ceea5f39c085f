//! `/mcp`: the tools over the Model Context Protocol (Streamable HTTP, the official SDK), for an API
//! key or an OAuth access token (api/oauth/) sent as `Authorization: Bearer`. Each POST gets a server
//! and transport of its own (api/mcp/server.ts), so any replica answers any request; the session
//! (`Mcp-Session-Id`, api/mcp/sessions.ts) is a database record bound to the credential, never a
//! credential itself. What the SDK does not answer itself (a foreign Origin, a missing key, an
//! unknown session, another method) is problem+json like every error here.
import { setSignedFileHeaders } from '../signed-file-links.js';
import Router from '@koa/router';
import type { Context } from 'koa';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CATALOGUE } from '../../domain/tools/index.js';
import { ServiceError } from '../../contracts/errors.js';
import { bearer, type Authenticator } from '../auth.js';
import { DEFAULT_BODY_LIMIT, readJsonObject } from '../body.js';
import { applyCancellation, createMcpServer, type McpServerDeps } from '../mcp/server.js';
import { endSession, sessionOf } from '../mcp/sessions.js';
import { MCP_PATH, mcpChallenge } from '../mcp/protected-resource.js';
import type { OAuthBearer } from '../oauth/bearer.js';
import { credentialKind } from '../../domain/accounts/index.js';
import { RESULTS_PATH } from '../mcp/result-links.js';

export interface McpRoutesDeps extends McpServerDeps {
  auth: Authenticator;
  /** OAuth access tokens of the service's authorization server (api/oauth/). */
  oauth: OAuthBearer;
}

/** How long the credential's lookup waits out a database outage before answering 503. */
const AUTH_WAIT_MS = 10_000;

/** The largest tool body, and room for the JSON-RPC envelope around it. */
const MCP_BODY_LIMIT = Math.max(DEFAULT_BODY_LIMIT, ...[...CATALOGUE.values()].map((t) => t.maxBodyBytes ?? 0)) + 64 * 1024;

/**
 * A browser page may reach this path only from the service's own origin: a page elsewhere whose
 * name was made to resolve here (DNS rebinding) sends its own `Origin`. Clients that are not
 * browsers send none.
 */
function checkOrigin(ctx: Context, baseUrl: string): void {
  const origin = ctx.get('Origin');
  if (origin && origin !== new URL(baseUrl).origin)
    throw new ServiceError(
      'csrf_rejected',
      `Requests from ${origin} are refused: /mcp answers clients that are not web pages, and this service's own.`,
    );
}

export function mcpRoutes(deps: McpRoutesDeps): Router {
  const router = new Router();

  /** The request's principal: an API key by its shape, else an OAuth access token. */
  async function principalOf(ctx: Context) {
    const header = ctx.get('Authorization') || undefined;
    const token = bearer(header);
    if (token && !credentialKind(token)) return deps.oauth.authenticate(token);
    return deps.auth.authenticate(header, 'api_key', Date.now() + AUTH_WAIT_MS, ctx.ip);
  }

  /**
   * Origin first, then the credential, for every method: a refused page learns nothing more. A 401
   * points the client at the protected resource metadata, where OAuth begins (RFC 9728).
   */
  const admitted = async (ctx: Context, next: () => Promise<unknown>) => {
    checkOrigin(ctx, deps.baseUrl);
    try {
      ctx.state.principal = await principalOf(ctx);
    } catch (err) {
      if (!(err instanceof ServiceError) || err.code !== 'unauthorized') throw err;
      // RFC 6750: a credential that was sent and refused is `invalid_token`; none sent, no error named.
      const challenge = mcpChallenge(deps.baseUrl, ctx.get('Authorization') ? 'invalid_token' : undefined);
      throw new ServiceError('unauthorized', err.message, err.extras, { headers: { 'WWW-Authenticate': challenge } });
    }
    await next();
  };

  router.post(MCP_PATH, admitted, async (ctx) => {
    // The SDK answers this itself, as a JSON-RPC error; here it is a problem like every refusal,
    // before the body is read.
    const accept = ctx.get('Accept');
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      throw new ServiceError('not_acceptable', 'Accept both application/json and text/event-stream: this MCP server answers with either.');
    }
    const body = await readJsonObject(ctx, MCP_BODY_LIMIT);
    // Every message takes from the key's and the account's rate as a REST request does: a tool
    // call in its handler (api/mcp/server.ts, where a refusal is a tool result), anything else
    // (initialize, tools/list, a notification) here, so listing in a loop is limited like calling.
    if (body.method !== 'tools/call') await deps.limiter.admit(ctx.state.principal);
    const sessionId = await sessionOf(ctx, deps.sessions, body);
    if (body.method === 'notifications/cancelled') await applyCancellation(deps, sessionId, body);
    // The SDK's transport keeps no session: the record does, checked above on every replica.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = createMcpServer(ctx.state.principal, deps, { sessionId, endUnanswered: (id) => transport.closeSSEStream(id) });
    await server.connect(transport);
    // The SDK writes the answer (JSON, or a stream of events for a call that reports progress),
    // with the headers set so far.
    ctx.set('X-Request-Id', ctx.state.requestId);
    ctx.respond = false;
    ctx.res.on('close', () => {
      server.close().catch(() => undefined);
    });
    await transport.handleRequest(ctx.req, ctx.res, body);
  });

  router.delete(MCP_PATH, admitted, async (ctx) => {
    await endSession(ctx, deps.sessions);
    ctx.status = 204;
  });

  // No stream of the server's own to open (GET): everything it says answers a POST.
  router.all(MCP_PATH, admitted, (ctx) => {
    ctx.set('Allow', 'POST, DELETE');
    throw new ServiceError('method_not_allowed', `This MCP server sends nothing unasked: send each message with POST, not ${ctx.method}.`);
  });

  // A call's file by its result link: the signature opens it, for the link's hour. Served under a
  // sandbox, as an attachment would be: a PDF's scripts run nowhere near this origin.
  router.get(RESULT_PATH, async (ctx) => {
    const file = await deps.results.open(ctx.params.file!, ctx.querystring);
    setSignedFileHeaders(ctx, file.expiresAt);
    ctx.type = file.mimeType;
    ctx.body = file.bytes;
  });
  router.all(RESULT_PATH, (ctx) => {
    ctx.set('Allow', 'GET, HEAD');
    throw new ServiceError('method_not_allowed', `Result links are read with GET or HEAD, not ${ctx.method}.`);
  });

  return router;
}

/** A result link's route (api/mcp/result-links.ts). */
const RESULT_PATH = `${RESULTS_PATH}:file`;
