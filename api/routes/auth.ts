//! A person's own routes (`/api/v1/auth/...`): sign up, verify the address, sign in and out, the
//! session and its account, the list of sessions, the password, its reset, and accepting an
//! invitation. HTTP only: what each does is domain/identity/ (and domain/teams/ for invitations).
//! Routes that sign in set the session cookie.
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { type Identity, sessionView, type SessionDoc, userActing, passkeyView } from '../../domain/identity/index.js';
import { currentSessionOf, perClientLimit, sessionAnswerOf } from '../person-session.js';
import type { Teams } from '../../domain/teams/index.js';
import { policyAllows, providerRequired, type Role } from '../../domain/membership/index.js';
import { ServiceError } from '../../contracts/errors.js';
import type { Authenticator, Principal } from '../auth.js';
import { readJsonObject } from '../body.js';
import { AUTH_BODY_SCHEMAS } from '../bodies/auth.js';
import { compileBodySchemas } from '../validation.js';
import { ownerActing, requestFacts } from '../audit-context.js';
import { clearSessionCookie, setSessionCookie, type CookieSettings } from '../session-cookie.js';
import type { RateLimiter } from '../rate-limit.js';

export interface AuthRouteDeps {
  identity: Identity;
  teams: Teams;
  auth: Authenticator;
  cookie: CookieSettings;
  rateLimit: Middleware;
  limiter: RateLimiter;
}

export function authRoutes(deps: AuthRouteDeps): Router {
  const { identity, auth, cookie } = deps;
  const router = new Router({ prefix: '/api/v1' });
  const check = compileBodySchemas(AUTH_BODY_SCHEMAS);
  const read = async <K extends keyof typeof AUTH_BODY_SCHEMAS>(ctx: Context, schema: K, allowEmpty = false) =>
    check(schema, await readJsonObject(ctx, 16 * 1024, { allowEmpty }));

  const perClient = perClientLimit(deps.limiter);

  const currentSession = (ctx: Context) => currentSessionOf(auth, ctx);
  const sessionAnswer = (doc: SessionDoc) => sessionAnswerOf(identity, doc);

  async function signedIn(ctx: Context, started: { secret: string; doc: SessionDoc }) {
    setSessionCookie(ctx, cookie, started.secret, started.doc.expiresAt);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await sessionAnswer(started.doc);
  }

  const session = (ctx: Context) => (ctx.state.principal as Principal).session!;

  router.post('/auth/signup', perClient, async (ctx) => {
    await identity.signup.signup(await read(ctx, 'signup'));
    ctx.status = 202;
    ctx.body = { status: 'verification_sent' };
  });

  router.post('/auth/verify', perClient, async (ctx) => {
    const { token } = await read(ctx, 'verify');
    await signedIn(ctx, await identity.signup.verify(token, requestFacts(ctx)));
  });

  router.post('/auth/signin', perClient, async (ctx) => {
    const body = await read(ctx, 'signin');
    const replacing = await currentSession(ctx);
    await signedIn(ctx, await identity.signin.signin(body, requestFacts(ctx), replacing, replacing?.accountId));
  });

  router.post('/auth/signout', async (ctx) => {
    const current = await auth.sessionOf(ctx).catch((err) => {
      if (err instanceof ServiceError && err.code === 'unauthenticated') return undefined;
      throw err;
    });
    if (current?.session)
      await identity.sessions.endOne(
        current.session.userId,
        current.session._id,
        'signed_out',
        userActing(current.session.userId, requestFacts(ctx)),
      );
    clearSessionCookie(ctx, cookie);
    ctx.status = 204;
  });

  router.get('/auth/session', auth.requireSession(), async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await sessionAnswer(session(ctx));
  });

  router.put('/auth/session', auth.requireSession(), deps.rateLimit, async (ctx) => {
    const { accountId } = await read(ctx, 'switchAccount');
    const doc = session(ctx);
    const membership = (await identity.memberships.accountsOf(doc.userId)).find((a) => a.id === accountId);
    if (!membership) throw new ServiceError('not_found', `You are not a member of an account ${accountId}.`);
    if (!policyAllows(membership.signInPolicy, doc)) throw providerRequired(identity.providers, membership.signInPolicy!.requiredProvider);
    await identity.sessions.switchAccount(doc._id, accountId, membership.role as Role);
    ctx.body = await sessionAnswer({ ...doc, accountId, role: membership.role });
  });

  router.get('/auth/sessions', auth.requireSession(), async (ctx) => {
    const doc = session(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = (await identity.sessions.listLive(doc.userId)).map((s) => sessionView(s, doc._id));
  });

  router.delete('/auth/sessions/:id', auth.requireSession(), async (ctx) => {
    const doc = session(ctx);
    const ended = await identity.sessions.endOne(doc.userId, ctx.params.id!, 'ended_by_user', ownerActing(ctx));
    if (!ended) throw new ServiceError('not_found', `You have no live session ${ctx.params.id}.`);
    if (ctx.params.id === doc._id) clearSessionCookie(ctx, cookie);
    ctx.status = 204;
  });

  router.delete('/auth/sessions', auth.requireSession(), async (ctx) => {
    const doc = session(ctx);
    ctx.body = { ended: await identity.sessions.endAllBut(doc.userId, doc._id, 'ended_by_user', ownerActing(ctx)) };
  });

  router.post('/auth/password', auth.requireSession(), async (ctx) => {
    const body = await read(ctx, 'changePassword');
    ctx.body = await identity.passwords.change(session(ctx), body, requestFacts(ctx));
  });

  router.post('/auth/password-reset', perClient, async (ctx) => {
    const { email } = await read(ctx, 'requestReset');
    await identity.passwords.requestReset(email);
    ctx.status = 202;
    ctx.body = { status: 'reset_sent' };
  });

  router.post('/auth/password-reset/confirm', perClient, async (ctx) => {
    await identity.passwords.confirmReset(await read(ctx, 'confirmReset'), requestFacts(ctx));
    ctx.body = { status: 'password_changed' };
  });

  router.post('/auth/invitations/accept', perClient, async (ctx) => {
    const body = await read(ctx, 'acceptInvitation');
    const current = await currentSession(ctx);
    const started = await deps.teams.invitations.accept(body, current, requestFacts(ctx));
    if (started) await signedIn(ctx, started);
    else ctx.body = await sessionAnswer((await identity.sessions.get(current!._id))!);
  });

  router.post('/auth/passkeys/options', auth.requireSession(), async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await identity.passkeys.registrationOptions(session(ctx));
  });

  router.post('/auth/passkeys', auth.requireSession(), async (ctx) => {
    const body = await read(ctx, 'registerPasskey');
    ctx.status = 201;
    ctx.body = passkeyView(await identity.passkeys.register(session(ctx), body, requestFacts(ctx)));
  });

  router.get('/auth/passkeys', auth.requireSession(), async (ctx) => {
    ctx.body = (await identity.passkeys.list(session(ctx).userId)).map(passkeyView);
  });

  router.patch('/auth/passkeys/:id', auth.requireSession(), async (ctx) => {
    const { name } = await read(ctx, 'renamePasskey');
    ctx.body = passkeyView(await identity.passkeys.rename(session(ctx).userId, ctx.params.id!, name));
  });

  router.delete('/auth/passkeys/:id', auth.requireSession(), async (ctx) => {
    await identity.passkeys.remove(session(ctx), ctx.params.id!, requestFacts(ctx));
    ctx.status = 204;
  });

  router.post('/auth/passkey-signin/options', perClient, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await identity.passkeys.authenticationOptions();
  });

  router.post('/auth/passkey-signin', perClient, async (ctx) => {
    const { response } = await read(ctx, 'passkeySignin');
    await signedIn(ctx, await identity.passkeys.signin(response, requestFacts(ctx), await currentSession(ctx)));
  });

  return router;
}
