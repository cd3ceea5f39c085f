//! The session cookie and the rule that guards it against other sites. The cookie is
//! `__Host-ut_session` (Secure, no Domain, Path=/) when PUBLIC_BASE_URL is https, else
//! `ut_session`; always HttpOnly and SameSite=Lax. A cookie-authenticated request that changes
//! something must come from the service's own pages: `Sec-Fetch-Site: same-origin`, or an
//! `Origin` equal to PUBLIC_BASE_URL's (docs/API.md, "People").
import type { Context } from 'koa';
import { ServiceError } from '../contracts/errors.js';

export interface CookieSettings {
  name: string;
  secure: boolean;
  /** PUBLIC_BASE_URL's origin, what an unsafe request's Origin must be. */
  origin: string;
}

export function cookieSettings(publicBaseUrl: string): CookieSettings {
  const url = new URL(publicBaseUrl);
  const secure = url.protocol === 'https:';
  return { name: secure ? '__Host-ut_session' : 'ut_session', secure, origin: url.origin };
}

/** The random value a cookie of this name carries (the first of that name), if it looks like one. */
function randomValueOf(ctx: Context, name: string): string | undefined {
  const header = ctx.get('Cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** The session secret the request's cookie carries, if any (the first of that name). */
export const sessionSecret = (ctx: Context, settings: CookieSettings) => randomValueOf(ctx, settings.name);

const attributes = (settings: CookieSettings) => `Path=/; HttpOnly; SameSite=Lax${settings.secure ? '; Secure' : ''}`;

/** Sets the cookie until the session's absolute end. */
export function setSessionCookie(ctx: Context, settings: CookieSettings, secret: string, expiresAt: Date) {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  ctx.append('Set-Cookie', `${settings.name}=${secret}; Max-Age=${maxAge}; ${attributes(settings)}`);
}

export function clearSessionCookie(ctx: Context, settings: CookieSettings) {
  ctx.append('Set-Cookie', `${settings.name}=; Max-Age=0; ${attributes(settings)}`);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Refuses (403 csrf_rejected) an unsafe request that did not come from the service's own pages. */
export function checkSameOrigin(ctx: Context, settings: CookieSettings) {
  if (SAFE_METHODS.has(ctx.method)) return;
  if (ctx.get('Sec-Fetch-Site') === 'same-origin') return;
  if (ctx.get('Origin') === settings.origin) return;
  throw new ServiceError(
    'csrf_rejected',
    "This request did not come from the service's own pages: a change made with the session cookie must be.",
  );
}

/**
 * The cookie that binds a sign-in through an identity provider to the browser that started it
 * (domain/identity/oidc.ts): `__Host-ut_oidc` or `ut_oidc`, HttpOnly, SameSite=Lax (the provider's
 * redirect back is a top-level GET, which carries it), for the 10 minutes a sign-in may take.
 */
const oidcCookieName = (settings: CookieSettings) => (settings.secure ? '__Host-ut_oidc' : 'ut_oidc');

export const oidcBinding = (ctx: Context, settings: CookieSettings) => randomValueOf(ctx, oidcCookieName(settings));

export function setOidcCookie(ctx: Context, settings: CookieSettings, binding: string, maxAgeSeconds: number) {
  ctx.append('Set-Cookie', `${oidcCookieName(settings)}=${binding}; Max-Age=${maxAgeSeconds}; ${attributes(settings)}`);
}

export function clearOidcCookie(ctx: Context, settings: CookieSettings) {
  ctx.append('Set-Cookie', `${oidcCookieName(settings)}=; Max-Age=0; ${attributes(settings)}`);
}
