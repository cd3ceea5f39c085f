//! An agent signing in through the service's authorization server, as HTTP: it registers (RFC 7591),
//! sends its person's browser to the authorization endpoint with PKCE, the browser (a cookie jar
//! here; Chromium in test/mcp/oauth-browser.test.ts) consents on the service's page, and the agent
//! trades the code for tokens.
import { createHash, randomBytes } from 'node:crypto';
import type { Client } from './people.js';
import type { UncheckedJson } from './api.js';

export interface OAuthApp {
  clientId: string;
  redirectUri: string;
  registrationAccessToken: string;
}

/** Registers a public client (no secret, PKCE), as MCP clients do. */
export async function registerApp(c: Client, name = 'Test agent', redirectUri = 'http://127.0.0.1:9/callback'): Promise<OAuthApp> {
  const res = await c.request('POST', '/oauth/register', {
    body: {
      client_name: name,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    crossSite: true,
  });
  if (res.status !== 201) throw new Error(`registration answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { clientId: res.body.client_id, redirectUri, registrationAccessToken: res.body.registration_access_token };
}

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A browser's cookies, sent back on every request (paths left aside: the test's requests stay on the paths that set them). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(setCookie: string[]): void {
    for (const line of setCookie) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (value && !/expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.set(name, value);
      else this.cookies.delete(name);
    }
  }
  header(extra?: string): string {
    return [...[...this.cookies].map(([n, v]) => `${n}=${v}`), ...(extra ? [extra] : [])].join('; ');
  }
}

/** Path and query of a Location (absolute ones name the service's public origin). */
const local = (location: string) => {
  const url = new URL(location, 'http://service.invalid');
  return url.pathname + url.search;
};

export interface Authorization {
  jar: CookieJar;
  /** Where the browser landed: the consent page's path, or (refused at once) the client's redirect URI with the error. */
  location: string;
  status: number;
}

/** The browser opens the authorization URL the app made (PKCE S256 unless `params` say otherwise). */
export async function beginAuthorization(c: Client, app: OAuthApp, params: Record<string, string>): Promise<Authorization> {
  const jar = new CookieJar();
  const query = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    response_type: 'code',
    state: randomBytes(8).toString('hex'),
    ...params,
  });
  const res = await c.request('GET', `/oauth/authorize?${query}`);
  jar.take(res.setCookie);
  return { jar, location: res.headers.get('location') ?? '', status: res.status };
}

/**
 * The person answers the consent page (`decision` allow or deny, `accountId`) with their session
 * cookie; the browser follows the redirects back to the app. Returns the URL the app receives.
 */
export async function answerConsent(
  c: Client,
  auth: Authorization,
  session: string,
  form: Record<string, string>,
): Promise<URL | UncheckedJson> {
  const posted = await c.request('POST', local(auth.location), { cookie: auth.jar.header(session), form });
  auth.jar.take(posted.setCookie);
  if (posted.status !== 303) return posted;
  const resumed = await c.request('GET', local(posted.headers.get('location')!), { cookie: auth.jar.header(session) });
  auth.jar.take(resumed.setCookie);
  return new URL(resumed.headers.get('location')!);
}

/** The token endpoint, with the app's form fields. */
export async function tokenRequest(c: Client, app: OAuthApp, fields: Record<string, string>) {
  return c.request('POST', '/oauth/token', { form: { client_id: app.clientId, ...fields }, crossSite: true });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope?: string;
  token_type: string;
}

/**
 * The whole flow for `session`'s person, consenting for `accountId`: the tokens, or throws. The
 * resource is `/mcp` of the service's public origin.
 */
export async function connectApp(c: Client, app: OAuthApp, session: string, accountId: string, resource: string): Promise<Tokens> {
  const { verifier, challenge } = pkcePair();
  const auth = await beginAuthorization(c, app, { code_challenge: challenge, code_challenge_method: 'S256', resource, scope: 'mcp' });
  const back = await answerConsent(c, auth, session, { decision: 'allow', accountId });
  if (!(back instanceof URL) || !back.searchParams.get('code')) throw new Error(`no code: ${JSON.stringify(back)}`);
  const res = await tokenRequest(c, app, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    code_verifier: verifier,
    redirect_uri: app.redirectUri,
    resource,
  });
  if (res.status !== 200) throw new Error(`token endpoint answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as Tokens;
}
