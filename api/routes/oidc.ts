//! Signing in through an identity provider (`/api/v1/auth/oidc/...`): the list of providers, the
//! start (a redirect to the provider, with the cookie that binds the sign-in to this browser) and
//! the callback the provider redirects back to (which signs in and goes on to the dashboard). HTTP
//! only: what each does is domain/identity/oidc.ts.
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { type Identity, OIDC_STATE_MS } from '../../domain/identity/index.js';
import { providerSignInPath } from '../../domain/membership/index.js';
import type { Authenticator } from '../auth.js';
import { requestFacts } from '../audit-context.js';
import { clearOidcCookie, oidcBinding, setOidcCookie, setSessionCookie, type CookieSettings } from '../session-cookie.js';
import { currentSessionOf } from '../person-session.js';
import { ServiceError } from '../../contracts/errors.js';
import type { Logger } from '../../lib/logger.js';

/** What an operator needs of a failed exchange with a provider: which step, and what the library or the provider said (never a token or a claim). */
function describeCause(cause: unknown) {
  const e = cause as { name?: unknown; code?: unknown; message?: unknown; error?: unknown; status?: unknown } | undefined;
  return {
    name: e?.name,
    code: e?.code,
    error: e?.error,
    status: e?.status,
    message: typeof e?.message === 'string' ? e.message.slice(0, 200) : undefined,
  };
}

/** Where a browser goes once signed in. */
const AFTER_SIGN_IN = '/dashboard';
/** Where a browser goes when a sign-in through a provider fails: the sign-in page, told only the problem's code (no text of ours or the provider's in a URL). */
const signInProblemPath = (code: string) => `/dashboard/sign-in?problem=${encodeURIComponent(code)}`;

export interface OidcRouteDeps {
  identity: Identity;
  log: Logger;
  auth: Authenticator;
  cookie: CookieSettings;
  /** The per-client limit of the routes that take no session (api/routes/auth.ts). */
  perClient: Middleware;
}

export function oidcRoutes(deps: OidcRouteDeps): Router {
  const { identity, cookie } = deps;
  const router = new Router({ prefix: '/api/v1/auth/oidc' });

  /**
   * The provider could not be reached, or its answer did not verify: the person sees the problem,
   * the operator the reason in the log. A browser's navigation (it asks for HTML first) goes back
   * to the sign-in page, which says what went wrong by the problem's code; scripts get the problem.
   */
  router.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (err instanceof ServiceError && (err.code === 'unavailable' || (err.code === 'oidc_failed' && err.extras.reason === 'token'))) {
        deps.log.warn(
          { requestId: ctx.state.requestId, provider: ctx.params.provider, code: err.code, cause: describeCause(err.cause) },
          'identity provider sign-in failed',
        );
      }
      if (!(err instanceof ServiceError) || !ctx.params.provider || ctx.accepts('json', 'html') !== 'html') throw err;
      ctx.set('Cache-Control', 'no-store');
      ctx.status = 303;
      ctx.redirect(signInProblemPath(err.code));
    }
  });

  router.get('/', (ctx) => {
    ctx.body = identity.providers.map((p) => ({ id: p.id, name: p.name, signInPath: providerSignInPath(p.id) }));
  });

  router.get('/:provider/start', deps.perClient, async (ctx) => {
    const { url, binding } = await identity.oidc.start(ctx.params.provider!);
    setOidcCookie(ctx, cookie, binding, OIDC_STATE_MS / 1000);
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 303;
    ctx.redirect(url);
  });

  router.get('/:provider/callback', deps.perClient, async (ctx) => {
    const binding = oidcBinding(ctx, cookie);
    clearOidcCookie(ctx, cookie); // used once, whatever the outcome
    ctx.set('Cache-Control', 'no-store');
    const started = await identity.oidc.callback(
      ctx.params.provider!,
      ctx.querystring,
      binding,
      requestFacts(ctx),
      await currentSessionOf(deps.auth, ctx),
    );
    setSessionCookie(ctx, cookie, started.secret, started.doc.expiresAt);
    ctx.status = 303;
    ctx.redirect(AFTER_SIGN_IN);
  });

  return router;
}
