//! The role check of the account API: one middleware, run by every account router right after
//! authentication (api/auth.ts `require('owner_token')`), that consults the table of
//! domain/teams/permissions.ts before any handler runs. A signed-in member acts with their role on
//! the account; an owner token keeps the owner's rights.
import type { Context, Middleware } from 'koa';
import { ServiceError } from '../contracts/errors.js';
import type { Role } from '../domain/membership/index.js';
import { permits } from '../domain/teams/index.js';

/** What the check reads of the request's principal (api/auth.ts): a session's role, none for an owner token. */
interface Acting {
  role?: Role;
}

/** The role a principal acts with: a session's member role, or `owner` for an owner token. */
export const roleOf = (principal: Acting): Role => principal.role ?? 'owner';

/** Refuses (403 `forbidden_for_role`, naming the role needed) a request the principal's role may not make. */
export function checkRole(ctx: Context): void {
  const role = roleOf(ctx.state.principal as Acting);
  const verdict = permits(role, ctx.method, ctx.path);
  if (verdict.allowed) return;
  throw new ServiceError(
    'forbidden_for_role',
    `Your role on this account, ${role}, may not do this: it needs ${verdict.requiredRole} (${verdict.allowedRoles.join(', ')}). Ask an owner or an admin of the account.`,
    { requiredRole: verdict.requiredRole, role, allowedRoles: verdict.allowedRoles },
  );
}

/** `checkRole` as a middleware, for a router that authenticates in its own way. */
export const roleCheck: Middleware = async (ctx, next) => {
  checkRole(ctx);
  await next();
};
