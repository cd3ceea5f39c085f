//! Credentials: API keys call tools, owner tokens and dashboard sessions manage the account, the
//! admin token runs the operator API. Bearer lookups are by SHA-256 digest with a cache short
//! enough that a revoked key fails within a second on every API instance; a session is one read
//! by its cookie's digest, uncached, so an ended session is refused at once everywhere.
import { timingSafeEqual } from 'node:crypto';
import type { Db } from 'mongodb';
import type { Context, Middleware } from 'koa';
import { credentialDigest, credentialKind, keyExpired } from '../domain/accounts/index.js';
import { ipAllowed } from '../lib/ip-allowlist.js';
import { collections, untilReachable } from '../lib/mongo.js';
import type { CredentialDoc, CredentialKind } from '../domain/account-documents.js';
import type { Role } from '../domain/membership/index.js';
import { type SessionDoc, unauthenticated, type Sessions } from '../domain/identity/index.js';
import { ServiceError } from '../contracts/errors.js';
import { checkSameOrigin, sessionSecret, type CookieSettings } from './session-cookie.js';
import { checkRole } from './permissions.js';

/** Revocation must be visible within 1 s on every instance (docs/API.md); the cache stays well under it. */
const CACHE_MS = 500;
/** lastUsedAt is a display value: write it at most once a minute per credential. */
const LAST_USED_EVERY_MS = 60_000;
/** Credentials remembered by each map below; past it the map starts again (a lookup or a write more, never a wrong answer). */
const REMEMBERED = 10_000;

export interface Principal {
  accountId: string;
  /** The credential's id; a session's public id (`ses_...`). */
  credentialId: string;
  kind: CredentialKind | 'session' | 'oauth';
  /** The credential's display prefix: who acted, in the audit log (empty for a session: the user is named). */
  prefix: string;
  /** A signed-in person (kind `session`), or the member an agent acts for (kind `oauth`): who, their role on the account, and their session. */
  userId?: string;
  role?: Role;
  session?: SessionDoc;
  /** The key's settings checked per call (domain/accounts/key-settings.ts); absent when it has none. */
  limits?: KeyLimits;
}

/** What a call checks beyond authentication: which tools, how fast, how many credits a month. */
export type KeyLimits = Pick<CredentialDoc, 'tools' | 'rateLimit' | 'monthlyCreditLimit'>;

const unauthorized = (detail: string, extras: Record<string, unknown> = {}) =>
  new ServiceError('unauthorized', detail, extras, { headers: { 'WWW-Authenticate': 'Bearer' } });

/** The credential of an `Authorization: Bearer <credential>` header, or null. */
export function bearer(header: string | undefined): string | null {
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  return m ? m[1]! : null;
}

export interface SessionAuthOptions {
  sessions: Sessions;
  cookie: CookieSettings;
}

export function createAuthenticator(db: Db, sessionAuth?: SessionAuthOptions) {
  const { credentials } = collections(db);
  const cache = new Map<string, { doc: CredentialDoc | null; at: number }>();
  const lastUsedWritten = new Map<string, number>();

  async function lookup(digest: string, waitUntil: number): Promise<CredentialDoc | null> {
    const hit = cache.get(digest);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.doc;
    const doc = await untilReachable(waitUntil, () => credentials.findOne({ digest }));
    if (cache.size > REMEMBERED) cache.clear();
    cache.set(digest, { doc, at: Date.now() });
    return doc;
  }

  function touch(doc: CredentialDoc, ip: string | undefined) {
    const now = Date.now();
    if (now - (lastUsedWritten.get(doc._id) ?? 0) < LAST_USED_EVERY_MS) return;
    if (lastUsedWritten.size > REMEMBERED) lastUsedWritten.clear();
    lastUsedWritten.set(doc._id, now);
    credentials.updateOne({ _id: doc._id }, { $set: { lastUsedAt: new Date(now), lastUsedIp: ip ?? null } }).catch(() => {});
  }

  /**
   * Resolves the request's credential, which must be of `kind`; while the database is
   * unreachable the lookup is repeated until `waitUntil` (epoch ms; by default not at all).
   * `ip` is the client's address as the proxy setting trusts it (a key's `allowedIps`).
   */
  async function authenticate(header: string | undefined, kind: CredentialKind, waitUntil = 0, ip?: string): Promise<Principal> {
    const secret = bearer(header);
    if (!secret) throw unauthorized('Send a credential as Authorization: Bearer <key>.');
    const claimed = credentialKind(secret);
    if (!claimed) throw unauthorized('The credential is malformed.');
    const doc = await lookup(credentialDigest(secret), waitUntil);
    if (!doc || doc.kind !== claimed) throw unauthorized('The credential is unknown.');
    if (doc.revokedAt) throw unauthorized('The credential has been revoked.');
    if (doc.expiresAt && keyExpired(doc, Date.now()))
      throw unauthorized(`The key expired at ${doc.expiresAt.toISOString()}.`, { reason: 'expired' });
    if (doc.kind !== kind) {
      const needed = kind === 'api_key' ? 'an API key' : 'an owner token';
      throw new ServiceError('forbidden', `This endpoint takes ${needed}.`);
    }
    if (doc.allowedIps && !ipAllowed(ip ?? '', doc.allowedIps)) {
      throw new ServiceError('ip_not_allowed', `This key may not be used from ${ip ?? 'an unknown address'}.`, { ip: ip ?? null });
    }
    touch(doc, ip);
    const principal: Principal = { accountId: doc.accountId, credentialId: doc._id, kind: doc.kind, prefix: doc.prefix };
    if (doc.tools || doc.rateLimit || doc.monthlyCreditLimit)
      principal.limits = { tools: doc.tools, rateLimit: doc.rateLimit, monthlyCreditLimit: doc.monthlyCreditLimit };
    return principal;
  }

  /**
   * The live session of the request's cookie, or undefined when it carries none; an ended one is
   * 401 `unauthenticated`. A change made with it must come from the service's own pages.
   */
  async function sessionOf(ctx: Context): Promise<Principal | undefined> {
    if (!sessionAuth) return undefined;
    const secret = sessionSecret(ctx, sessionAuth.cookie);
    if (!secret) return undefined;
    const found = await sessionAuth.sessions.validate(secret);
    if (!found.doc)
      throw unauthenticated(
        found.reason === 'idle' ? 'Your session ended after a time without use: sign in again.' : 'Your session has ended: sign in again.',
      );
    checkSameOrigin(ctx, sessionAuth.cookie);
    const doc = found.doc;
    return {
      accountId: doc.accountId,
      credentialId: doc._id,
      kind: 'session',
      prefix: '',
      userId: doc.userId,
      role: doc.role,
      session: doc,
    };
  }

  return {
    authenticate,
    sessionOf,
    /** Only a signed-in session (the /auth routes of a person): 401 `unauthenticated` otherwise. */
    requireSession(): Middleware {
      return async (ctx, next) => {
        const principal = await sessionOf(ctx);
        if (!principal) throw unauthenticated('Sign in to continue.');
        ctx.state.principal = principal;
        await next();
      };
    },
    /** Forget cached lookups (a revocation in this process is visible at once). */
    forget(digest?: string) {
      if (digest) cache.delete(digest);
      else cache.clear();
    },
    /**
     * `waitUntil` gives the request's deadline for waiting out a database outage (tool calls).
     * The account routes (`owner_token`) also take a signed-in session when no bearer credential
     * is sent, and are checked against the role table (api/permissions.ts) before their handler.
     */
    require(kind: CredentialKind, waitUntil?: (ctx: Context) => number): Middleware {
      return async (ctx, next) => {
        const header = ctx.get('Authorization') || undefined;
        const session = kind === 'owner_token' && !header ? await sessionOf(ctx) : undefined;
        ctx.state.principal = session ?? (await authenticate(header, kind, waitUntil?.(ctx), ctx.ip));
        if (kind === 'owner_token') checkRole(ctx);
        await next();
      };
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;

/** The operator API: off (404) when ADMIN_TOKEN is unset. */
export function requireAdmin(adminToken: string | undefined): Middleware {
  const expected = adminToken ? Buffer.from(adminToken) : null;
  return async (ctx, next) => {
    if (!expected) throw new ServiceError('not_found', 'The operator API is not enabled.');
    const given = Buffer.from(bearer(ctx.get('Authorization') || undefined) ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw unauthorized('The operator API takes the admin token.');
    }
    await next();
  };
}
