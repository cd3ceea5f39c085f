//! Who is making a change, as the audit log records it: the actor (the owner by their token's
//! prefix, a signed-in person, the operator), the client address (as TRUSTED_PROXY_HOPS trusts it) and user agent.
import type { Context } from 'koa';
import type { AuditContext } from '../domain/audit/index.js';
import type { Principal } from './auth.js';

/** Longest user agent kept: what it says past this is cut. */
const USER_AGENT_MAX = 256;

const from = (ctx: Context) => ({ ip: ctx.ip || null, userAgent: ctx.get('User-Agent').slice(0, USER_AGENT_MAX) || null });

/**
 * Who manages the account: the owner by their owner token's prefix (never the token), or a
 * signed-in person by their user id (never their session).
 */
export function ownerActing(ctx: Context): AuditContext {
  const principal: Principal = ctx.state.principal;
  if (principal.userId) return { actor: { type: 'user', credential: null, userId: principal.userId }, ...from(ctx) };
  return { actor: { type: 'owner', credential: principal.prefix }, ...from(ctx) };
}

/** Where a request came from, as a session and the audit log keep it. */
export const requestFacts = (ctx: Context) => from(ctx);

/** The operator, authenticated by ADMIN_TOKEN (named, never shown in part). */
export function operatorActing(ctx: Context): AuditContext {
  return { actor: { type: 'operator', credential: 'ADMIN_TOKEN' }, ...from(ctx) };
}
