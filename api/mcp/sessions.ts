//! The `Mcp-Session-Id` of a request to /mcp: issued on `initialize`, checked on every other
//! message that carries it, ended by DELETE. The session is the credential's (domain/mcp-sessions.ts):
//! presented with another credential it is unknown (404, as the spec answers a session that ended),
//! so a leaked id gives nobody anything. A message without one is served as before, its tool calls
//! only beyond the reach of a cancellation.
import type { Context } from 'koa';
import type { McpSessions } from '../../domain/mcp-sessions.js';
import { ServiceError } from '../../contracts/errors.js';
import type { Principal } from '../auth.js';

export const SESSION_HEADER = 'Mcp-Session-Id';

const unknownSession = () =>
  new ServiceError(
    'not_found',
    'There is no such MCP session for this credential (it ended, or was never this one): initialize a new one.',
  );

/** The request's session: a new one on `initialize` (its id in the answer's header), else the one it names, if any. */
export async function sessionOf(ctx: Context, sessions: McpSessions, body: Record<string, unknown>): Promise<string | undefined> {
  const principal = ctx.state.principal as Principal;
  if (body.method === 'initialize') {
    const sessionId = await sessions.open({ accountId: principal.accountId, credentialId: principal.credentialId });
    ctx.set(SESSION_HEADER, sessionId);
    return sessionId;
  }
  const named = ctx.get(SESSION_HEADER);
  if (!named) return undefined;
  if (!(await sessions.isOwn(named, principal.credentialId))) throw unknownSession();
  return named;
}

/** DELETE: ends the session the request names, which must be its credential's. */
export async function endSession(ctx: Context, sessions: McpSessions): Promise<void> {
  const named = ctx.get(SESSION_HEADER);
  if (!named || !(await sessions.end(named, (ctx.state.principal as Principal).credentialId))) throw unknownSession();
}
