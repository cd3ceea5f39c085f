//! The authorization server agents sign in through (OAuth 2.1 as the MCP specification asks), on
//! panva's oidc-provider: authorization code with PKCE (S256) only, tokens for one resource, `/mcp`
//! (RFC 8707), clients by dynamic registration (RFC 7591) or a client ID metadata document, refresh
//! tokens rotated on each use (a used one presented again ends the grant), revocation (RFC 7009).
//! Its storage is the database (domain/oauth/store.ts), so every API replica is the same server. It
//! signs in nobody itself: every authorization goes through the consent page (api/routes/oauth.ts),
//! which asks for the person's dashboard session.
import { createPrivateKey, hkdfSync } from 'node:crypto';
import type { Db } from 'mongodb';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { oauthStoreAdapter } from '../../domain/oauth/index.js';
import type { GuardedHttp } from '../../lib/guarded-http.js';

/** The one scope: call this service's tools over MCP (the role of the member who consented decides which). */
export const MCP_SCOPE = 'mcp';

/** The scopes a consent grants when asked: the resource's own, and OpenID's two (a refresh token is issued without `offline_access`). */
export const GRANTABLE_SCOPES = ['openid', 'offline_access', MCP_SCOPE];

/** Where oidc-provider's endpoints live (discovery lists them). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  end_session: '/oauth/session/end',
  userinfo: '/oauth/userinfo',
  introspection: '/oauth/introspect',
  pushed_authorization_request: '/oauth/par',
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
  credential: '/oauth/credential',
} as const;

/** The consent page's path for an authorization under way. */
export const interactionPath = (uid: string) => `/oauth/interaction/${uid}`;

/** Lifetimes, in seconds. An access token lives an hour; its refresh token a month of disuse at most. */
const TTL = {
  AccessToken: 3_600,
  AuthorizationCode: 60,
  Interaction: 900,
  Session: 900,
  Grant: 90 * 86_400,
  RefreshToken: 30 * 86_400,
} as const;

/** What `loadExistingGrant` reads of the library's context: the result of the authorization's interaction. */
interface ResumedContext {
  oidc: { result?: { consent?: { grantId?: string } }; provider: Provider };
}

/** A key of `bytes` derived from SECRET_KEY for `purpose`: every replica derives the same one. */
const derived = (secretKey: Buffer, purpose: string, bytes = 32) =>
  Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), purpose, bytes));

/** The Ed25519 signing key (for ID tokens, which no flow here asks for, but the library needs one): from a derived seed. */
function signingKey(secretKey: Buffer) {
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), derived(secretKey, 'oauth-signing-key')]);
  return { ...createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' }), alg: 'Ed25519', use: 'sig' };
}

export interface AuthorizationServerOptions {
  db: Db;
  /** The issuer, PUBLIC_BASE_URL. */
  baseUrl: string;
  secretKey: Buffer;
  /** The only resource a token may be for: `<baseUrl>/mcp`. */
  resource: string;
  /** Whether the API sits behind proxies it trusts (X-Forwarded-*). */
  proxy: boolean;
  /** What fetches a client ID metadata document: the target guard's client, since the document's host is the client's choice. */
  http: GuardedHttp;
}

/** The most of a client ID metadata document read. */
const METADATA_MAX_BYTES = 64 * 1024;
/** How long fetching one may take (the library's own bound). */
const METADATA_TIMEOUT_MS = 2_500;

/** oidc-provider's `fetch`, through the guarded client: https only, no redirect followed, small and quick. */
function guardedFetch(http: GuardedHttp) {
  return async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
    const sent: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      sent[name] = value;
    });
    const res = await http.request({
      url,
      method: init.method ?? 'GET',
      headers: sent,
      timeoutMs: METADATA_TIMEOUT_MS,
      maxBytes: METADATA_MAX_BYTES,
      schemes: ['https'],
      ...(init.signal ? { signal: init.signal } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
    return new Response(res.statusCode === 204 || res.statusCode === 304 ? null : new Uint8Array(res.body), {
      status: res.statusCode,
      headers,
    });
  };
}

export function createAuthorizationServer(options: AuthorizationServerOptions): Provider {
  const { resource } = options;
  const configuration: Configuration = {
    adapter: oauthStoreAdapter(options.db),
    routes: OAUTH_ROUTES,
    // A scope the server knows (clients register with it, RFC 7591, and ask for it) as well as the resource's.
    scopes: GRANTABLE_SCOPES,
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'Ed25519',
    },
    enabledJWA: { idTokenSigningAlgValues: ['Ed25519'] },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      // The draft this server implements, acknowledged: a new draft of it is a change to review.
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: KoaContextWithOIDC, indicator: string) => {
          if (indicator !== resource) throw new errors.InvalidTarget(`this server issues tokens for ${resource} only`);
          return { scope: MCP_SCOPE, audience: resource, accessTokenTTL: TTL.AccessToken, accessTokenFormat: 'opaque' };
        },
      },
    },
    // Every authorization asks the person again (the consent page checks their dashboard session):
    // only the grant their answer to this authorization made lets it through, never an earlier one.
    loadExistingGrant: async (ctx: ResumedContext) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction: { uid: string }) => interactionPath(interaction.uid) },
    findAccount: async (_ctx: KoaContextWithOIDC, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    issueRefreshToken: async (_ctx: KoaContextWithOIDC, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: TTL,
    cookies: { keys: [derived(options.secretKey, 'oauth-cookies').toString('base64url')] },
    jwks: { keys: [signingKey(options.secretKey)] },
    fetch: guardedFetch(options.http),
    renderError: async (ctx: { type: string; body: unknown }, out: Record<string, string>) => {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `The authorization could not go on: ${out.error}${out.error_description ? ` (${out.error_description})` : ''}.`;
    },
  } as Configuration;
  const provider = new Provider(options.baseUrl, configuration);
  provider.proxy = options.proxy;
  return provider;
}
