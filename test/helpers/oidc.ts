//! Signing in through the test stack's OpenID provider (test/fixtures/oidc-provider.ts) as a
//! browser would, without one: start at the service, follow the redirects through the provider with
//! its cookies, and come back to the service's callback with the service's short-lived cookie. The
//! provider signs in whoever the authorization request's `login_hint` names; a test may tamper with
//! the authorization URL (another nonce) or the callback (another state) on the way.
import { testEnv } from './env.js';
import type { Answer } from './api.js';
import { sessionCookieOf, type Client } from './people.js';

export const provider = () => testEnv.fixtures().oidc;

/** `name=value` of each Set-Cookie. */
const pairs = (setCookie: string[]) => setCookie.map((c) => c.split(';')[0]!).filter((p) => !p.endsWith('='));

export interface OidcSignIn {
  /** The service's answer to the start. */
  start: Answer & { setCookie: string[] };
  /** The service's answer to the callback (303 to the dashboard when signed in). */
  callback: Answer & { setCookie: string[] };
  /** The session cookie the callback set, if it did. */
  cookie: string | undefined;
}

export interface OidcOptions {
  /** A session cookie the browser already holds. */
  cookie?: string;
  /** Changes the provider's authorization URL before the browser goes there (e.g. its nonce). */
  tamperAuthorization?: (url: URL) => void;
  /** Changes the callback URL before the browser comes back (e.g. its state). */
  tamperCallback?: (url: URL) => void;
  /** Come back without the service's cookie, as another browser would. */
  dropBinding?: boolean;
  /** The provider's id (default the stack's). */
  providerId?: string;
}

/** Signs `login` in through the provider; answers what the service said at the start and at the callback. */
export async function oidcSignIn(c: Client, login: string, options: OidcOptions = {}): Promise<OidcSignIn> {
  const id = options.providerId ?? provider().id;
  const start = await c.request('GET', `/api/v1/auth/oidc/${id}/start`, { cookie: options.cookie });
  if (start.status !== 303) throw new Error(`the start answered ${start.status}: ${JSON.stringify(start.body)}`);
  const binding = pairs(start.setCookie);
  let url = new URL(start.headers.get('location')!);
  url.searchParams.set('login_hint', login);
  options.tamperAuthorization?.(url);
  const jar = new Map<string, string>();
  // Through the provider: authorization, its interaction, back to authorization, then to the service.
  for (let hops = 0; url.origin === new URL(provider().issuer).origin; hops++) {
    if (hops > 10) throw new Error('the provider redirected more than 10 times');
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar.values()].join('; ') } });
    for (const pair of pairs(res.headers.getSetCookie())) jar.set(pair.slice(0, pair.indexOf('=')), pair);
    const location = res.headers.get('location');
    if (!location) throw new Error(`the provider answered ${res.status} without a redirect: ${(await res.text()).slice(0, 300)}`);
    await res.body?.cancel();
    url = new URL(location, url);
  }
  options.tamperCallback?.(url);
  const cookie = [...(options.dropBinding ? [] : binding), ...(options.cookie ? [options.cookie] : [])].join('; ') || undefined;
  const callback = await c.request('GET', url.pathname + url.search, { cookie });
  return { start, callback, cookie: sessionCookieOf(callback.setCookie) };
}
