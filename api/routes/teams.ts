//! The team of an account (`/api/v1/account/...`): members and their roles, invitations, the
//! transfer of ownership and the sign-in policy. Who may call each is the role table
//! (domain/teams/permissions.ts), checked by `auth.require('owner_token')` before these handlers.
//! HTTP only: what each does is domain/teams/.
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { type Teams, invitationView } from '../../domain/teams/index.js';
import { providerSignInPath, type ProviderName } from '../../domain/membership/index.js';
import type { Authenticator, Principal } from '../auth.js';
import { readJsonObject } from '../body.js';
import { TEAM_BODY_SCHEMAS } from '../bodies/teams.js';
import { compileBodySchemas } from '../validation.js';
import { ownerActing } from '../audit-context.js';

export interface TeamRouteDeps {
  teams: Teams;
  auth: Authenticator;
  rateLimit: Middleware;
  /** OIDC_PROVIDERS as people see them. */
  providers: readonly ProviderName[];
}

export function teamRoutes(deps: TeamRouteDeps): Router {
  const { teams } = deps;
  const router = new Router({ prefix: '/api/v1/account' });
  const check = compileBodySchemas(TEAM_BODY_SCHEMAS);
  const read = async <K extends keyof typeof TEAM_BODY_SCHEMAS>(ctx: Context, schema: K) =>
    check(schema, await readJsonObject(ctx, 16 * 1024));
  const principal = (ctx: Context) => ctx.state.principal as Principal;
  const policyView = (requiredProvider: string | null, sessionsEnded = 0) => ({
    requiredProvider,
    providers: deps.providers.map((p) => ({ id: p.id, name: p.name, signInPath: providerSignInPath(p.id) })),
    sessionsEnded,
  });

  router.use(['/members', '/invitations', '/transfer-ownership', '/sign-in-policy'], deps.auth.require('owner_token'), deps.rateLimit);

  router.get('/members', async (ctx) => {
    ctx.body = await teams.members.list(principal(ctx).accountId);
  });

  router.patch('/members/:userId', async (ctx) => {
    const { role } = await read(ctx, 'changeRole');
    ctx.body = await teams.members.changeRole(principal(ctx).accountId, ctx.params.userId!, role, ownerActing(ctx));
  });

  router.delete('/members/:userId', async (ctx) => {
    await teams.members.remove(principal(ctx).accountId, ctx.params.userId!, ownerActing(ctx));
    ctx.status = 204;
  });

  router.post('/invitations', async (ctx) => {
    const { email, role } = await read(ctx, 'invite');
    ctx.status = 201;
    ctx.body = await teams.invitations.invite(principal(ctx).accountId, email, role, ownerActing(ctx));
  });

  router.get('/invitations', async (ctx) => {
    ctx.body = (await teams.invitations.list(principal(ctx).accountId)).map(invitationView);
  });

  router.delete('/invitations/:id', async (ctx) => {
    await teams.invitations.revoke(principal(ctx).accountId, ctx.params.id!, ownerActing(ctx));
    ctx.status = 204;
  });

  router.post('/transfer-ownership', async (ctx) => {
    const { userId } = await read(ctx, 'transferOwnership');
    ctx.body = await teams.members.transfer(principal(ctx).accountId, userId, principal(ctx).session, ownerActing(ctx));
  });

  router.get('/sign-in-policy', async (ctx) => {
    ctx.body = policyView((await teams.signInPolicies.get(principal(ctx).accountId))?.requiredProvider ?? null);
  });

  router.put('/sign-in-policy', async (ctx) => {
    const { requiredProvider } = await read(ctx, 'signInPolicy');
    const { policy, sessionsEnded } = await teams.signInPolicies.set(
      principal(ctx).accountId,
      requiredProvider,
      principal(ctx).session,
      ownerActing(ctx),
    );
    ctx.body = policyView(policy?.requiredProvider ?? null, sessionsEnded);
  });

  return router;
}
