//! What the routes of a person share (api/routes/auth.ts, api/routes/oidc.ts): the session a
//! request's cookie carries, what a signed-in answer says, and the per-client limit of the routes
//! that take no session.
import type { Context, Middleware } from 'koa';
import { type Identity, userView, unauthenticated, type SessionDoc } from '../domain/identity/index.js';
import type { AccountOfPerson } from '../domain/membership/index.js';
import { ServiceError } from '../contracts/errors.js';
import type { Authenticator } from './auth.js';
import type { RateLimiter } from './rate-limit.js';

/** An account of the signed-in person, as their session answer lists it. */
const accountView = (a: AccountOfPerson) => ({
  id: a.id,
  name: a.name,
  role: a.role,
  requiredProvider: a.signInPolicy?.requiredProvider ?? null,
});

/** The session of the cookie, when there is a live one; the request's own session, for a sign-in that replaces it. */
export async function currentSessionOf(auth: Authenticator, ctx: Context): Promise<SessionDoc | null> {
  try {
    return (await auth.sessionOf(ctx))?.session ?? null;
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'unauthenticated') return null;
    throw err;
  }
}

/** What a signed-in answer says: the person, the account acted on, the others, the session. */
export async function sessionAnswerOf(identity: Identity, doc: SessionDoc) {
  const user = await identity.users.get(doc.userId);
  if (!user) throw unauthenticated();
  const accounts = (await identity.memberships.accountsOf(doc.userId)).map(accountView);
  const account = accounts.find((a) => a.id === doc.accountId);
  return {
    user: userView(user),
    account: account ?? { id: doc.accountId, name: null, role: doc.role, requiredProvider: null },
    accounts,
    session: {
      id: doc._id,
      createdAt: doc.createdAt,
      expiresAt: doc.expiresAt,
      authenticatedAt: doc.authenticatedAt,
      method: doc.method,
      provider: doc.provider ?? null,
    },
  };
}

/** Requests a client address may make to the routes that take no session (sign-up, sign-in, reset) per second, in bursts of twice that. */
export const AUTH_REQUESTS_PER_SECOND = 10;

/** Per client address: the routes that take no session may hash a password, send a mail or call an identity provider. */
export function perClientLimit(limiter: RateLimiter): Middleware {
  return async (ctx, next) => {
    const r = await limiter.take(`auth:${ctx.ip}`, AUTH_REQUESTS_PER_SECOND);
    if (!r.allowed)
      throw new ServiceError(
        'rate_limited',
        `Over ${AUTH_REQUESTS_PER_SECOND} requests per second from this address; retry after ${r.retryAfter} s.`,
        { retryAfter: r.retryAfter },
        { headers: { 'Retry-After': String(r.retryAfter) } },
      );
    await next();
  };
}
