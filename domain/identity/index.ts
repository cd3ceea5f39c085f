//! People: sign-up, sign-in, sessions, passwords, passkeys and identity providers (domain/identity/), put together.
//! Teams (memberships, invitations, roles) build on it: domain/teams/.
import { createIdentityContext, type IdentityDeps } from './context.js';
import { createSignup } from './signup.js';
import { createSignin } from './signin.js';
import { createPasswords } from './passwords.js';
import { createPasskeys } from './passkeys.js';
import { createOidc } from './oidc.js';

export type { IdentitySettings, MailSender, RequestFacts, IdentityDeps } from './context.js';

export function createIdentity(deps: IdentityDeps) {
  const ctx = createIdentityContext(deps);
  const signin = createSignin(ctx);
  return {
    ...ctx,
    signup: createSignup(ctx),
    signin,
    passwords: createPasswords(ctx, signin),
    passkeys: createPasskeys(ctx, signin),
    oidc: createOidc(ctx, signin, deps.oidcProviders ?? []),
  };
}

export type Identity = ReturnType<typeof createIdentity>;
