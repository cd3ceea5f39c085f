//! The authorization server's HTTP (api/oauth/authorization-server.ts): `/.well-known/oauth-protected-resource`
//! (RFC 9728: what `/mcp` is and who issues its tokens), the server's own metadata
//! (`/.well-known/oauth-authorization-server`, RFC 8414, and the OpenID discovery document it is
//! also served as), its endpoints under `/oauth/` (answered by oidc-provider, with OAuth's own JSON
//! errors, which clients expect, rather than problem+json), and the consent page
//! (`/oauth/interaction/<uid>`): the person's dashboard session decides who consents, and the
//! library's interaction cookie ties the page to the browser that began the authorization.
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type Provider from 'oidc-provider';
import type { Identity } from '../../domain/identity/index.js';
import { userActing } from '../../domain/identity/context.js';
import { policyAllows } from '../../domain/membership/sign-in-policy.js';
import type { Role } from '../../domain/membership/documents.js';
import type { Connections } from '../../domain/oauth/connections.js';
import { ServiceError } from '../../contracts/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { Authenticator } from '../auth.js';
import { requestFacts } from '../audit-context.js';
import { readRawBody } from '../body.js';
import { GRANTABLE_SCOPES, MCP_SCOPE, OAUTH_ROUTES, interactionPath } from '../oauth/authorization-server.js';
import { consentPage, type ConsentAccount } from '../oauth/consent-page.js';
import { currentSessionOf } from '../person-session.js';
import { RESOURCE_METADATA_PATH, mcpResource, resourceMetadata } from '../mcp/protected-resource.js';

export interface OAuthRouteDeps {
  baseUrl: string;
  provider: Provider;
  connections: Pick<Connections, 'create'>;
  identity: Identity;
  auth: Authenticator;
  /** The per-client limit of the routes that take no session (api/routes/auth.ts). */
  perClient: Middleware;
  /** The dashboard's stylesheet, which the consent page wears too. */
  stylesheet: string;
  log: Logger;
}

export const RESOURCE_METADATA_ROOT = '/.well-known/oauth-protected-resource';
const DISCOVERY_PATH = '/.well-known/openid-configuration';
const AS_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** The most a consent form may send. */
const FORM_LIMIT = 4 * 1024;

/** The form-action sources the consent page needs: its own origin, and where the authorization's redirects end (the client's redirect URI). */
function formActionSources(redirectUri: string): string {
  const url = URL.parse(redirectUri);
  if (!url) return "'self'";
  const target = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
  return `'self' ${target}`;
}

/** The library's endpoints, by method. */
const OAUTH_GETS = [OAUTH_ROUTES.authorization, `${OAUTH_ROUTES.authorization}/:uid`, OAUTH_ROUTES.jwks];
const OAUTH_POSTS = [OAUTH_ROUTES.token, OAUTH_ROUTES.registration, OAUTH_ROUTES.revocation];

/**
 * The paths of the authorization server: described by its own metadata (RFC 8414) as OAuth
 * clients expect, with OAuth's errors, and not by the OpenAPI document; the consent page is
 * reached only by the authorization endpoint's redirect.
 */
export const AUTHORIZATION_SERVER_PATHS: readonly string[] = [
  DISCOVERY_PATH,
  AS_METADATA_PATH,
  ...OAUTH_GETS,
  ...OAUTH_POSTS,
  interactionPath(':uid'),
];

const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

export function oauthRoutes(deps: OAuthRouteDeps): Router {
  const { provider, identity } = deps;
  const router = new Router();
  const callback = provider.callback();
  const resource = mcpResource(deps.baseUrl);

  /** Hands the request to oidc-provider, which writes the answer itself. */
  const toProvider = async (ctx: Context) => {
    ctx.respond = false;
    await callback(ctx.req, ctx.res);
  };

  router.get([RESOURCE_METADATA_PATH, RESOURCE_METADATA_ROOT], (ctx) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = resourceMetadata(deps.baseUrl);
  });
  router.get(DISCOVERY_PATH, toProvider);
  // The same document under RFC 8414's name, which MCP clients ask for first.
  router.get(AS_METADATA_PATH, async (ctx) => {
    ctx.req.url = DISCOVERY_PATH;
    await toProvider(ctx);
  });

  // The library's endpoints this server offers (discovery lists them), the resumption of an
  // authorization (`/oauth/authorize/<uid>`) included; each POST is limited per client address like
  // the other routes that take no session.
  router.get(OAUTH_GETS, toProvider);
  router.post(OAUTH_POSTS, deps.perClient, toProvider);

  /** The authorization under way for this browser (the interaction cookie), which must be the page's. */
  async function interactionOf(ctx: Context) {
    let details: Awaited<ReturnType<Provider['interactionDetails']>>;
    try {
      details = await provider.interactionDetails(ctx.req, ctx.res);
    } catch {
      throw new ServiceError(
        'not_found',
        'This authorization has ended or was begun in another browser: start again from the app that asked.',
      );
    }
    if (details.uid !== ctx.params.uid) throw new ServiceError('not_found', 'This authorization is not the one this browser began.');
    const client = await provider.Client.find(String(details.params.client_id));
    if (!client) throw new ServiceError('not_found', 'The app that asked is no longer registered.');
    const redirectUri = String(details.params.redirect_uri);
    return { details, client, redirectUri, redirectHost: URL.parse(redirectUri)?.host || redirectUri };
  }

  /** The person's accounts, each choosable or not under its sign-in policy. */
  async function accountsFor(session: NonNullable<Awaited<ReturnType<typeof currentSessionOf>>>): Promise<ConsentAccount[]> {
    return (await identity.memberships.accountsOf(session.userId)).map((a) => ({
      id: a.id,
      name: a.name,
      role: a.role as Role,
      ...(policyAllows(a.signInPolicy, session)
        ? {}
        : {
            unavailable: `This account asks its members to sign in with ${a.signInPolicy?.requiredProvider}: sign in that way to connect it.`,
          }),
    }));
  }

  async function showConsent(ctx: Context, error?: string) {
    const { client, redirectUri, redirectHost } = await interactionOf(ctx);
    const session = await currentSessionOf(deps.auth, ctx);
    if (!session) {
      ctx.redirect(`/dashboard/sign-in?next=${encodeURIComponent(ctx.path)}`);
      ctx.status = 303;
      return;
    }
    const user = await identity.users.get(session.userId);
    ctx.set(PAGE_HEADERS);
    ctx.set(
      'Content-Security-Policy',
      `default-src 'none'; base-uri 'none'; frame-ancestors 'none'; style-src 'self'; img-src 'self'; form-action ${formActionSources(redirectUri)}`,
    );
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = consentPage({
      action: ctx.path,
      clientName: client.clientName ?? client.clientId,
      clientId: client.clientId,
      redirectHost,
      clientIdIsUrl: client.clientId.startsWith('https://'),
      person: user?.email ?? session.userId,
      accounts: await accountsFor(session),
      stylesheet: deps.stylesheet,
      ...(error ? { error } : {}),
    });
  }

  router.get(interactionPath(':uid'), (ctx) => showConsent(ctx));

  router.post(interactionPath(':uid'), deps.perClient, async (ctx) => {
    const { details, client, redirectHost } = await interactionOf(ctx);
    // Reading the session also refuses a form posted from another site (the session cookie alone must not consent).
    const session = await currentSessionOf(deps.auth, ctx);
    if (!session) throw new ServiceError('unauthenticated', 'Sign in to the dashboard, then allow or deny the app.');
    const form = new URLSearchParams((await readRawBody(ctx, FORM_LIMIT)).toString('utf8'));
    const decision = form.get('decision');
    if (decision === 'deny') {
      ctx.respond = false;
      await provider.interactionFinished(
        ctx.req,
        ctx.res,
        { error: 'access_denied', error_description: 'The person declined.' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    if (decision !== 'allow') throw new ServiceError('validation_failed', 'decision must be allow or deny.');
    const account = (await accountsFor(session)).find((a) => a.id === form.get('accountId'));
    if (!account || account.unavailable) {
      ctx.status = 422;
      await showConsent(ctx, account?.unavailable ?? 'Choose one of your accounts.');
      return;
    }
    const grant = new provider.Grant({ accountId: session.userId, clientId: client.clientId });
    const asked = String(details.params.scope ?? '').split(' ');
    const scopes = GRANTABLE_SCOPES.filter((scope) => asked.includes(scope));
    if (scopes.length) grant.addOIDCScope(scopes.join(' '));
    grant.addResourceScope(resource, MCP_SCOPE);
    const grantId = await grant.save();
    await deps.connections.create(
      {
        _id: grantId,
        accountId: account.id,
        userId: session.userId,
        clientId: client.clientId,
        clientName: client.clientName ?? client.clientId,
        redirectHost,
      },
      userActing(session.userId, requestFacts(ctx)),
    );
    ctx.respond = false;
    await provider.interactionFinished(
      ctx.req,
      ctx.res,
      { login: { accountId: session.userId }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  });

  return router;
}
