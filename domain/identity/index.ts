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
export { userActing, type IdentityContext } from './context.js';
export type { AuthTokenDoc, SessionDoc, UserDoc } from './documents.js';
export { MAX_EMAIL_LENGTH, normalizeEmail } from './email-address.js';
export { invitationMail } from './mail-texts.js';
export { OIDC_STATE_MS } from './oidc.js';
export { passkeyView } from './passkeys.js';
export { ARGON2_PARAMETERS, hashPassword } from './password-hashing.js';
export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordProblem } from './password-policy.js';
export { requireRecentSignIn } from './passwords.js';
export { invalidField, invalidToken, unauthenticated } from './problems.js';
export { createSessions, sessionView, type Sessions } from './sessions.js';
export type { Signin } from './signin.js';
export { sweepIdentity, type IdentitySweep } from './sweep.js';
export { createUsers, userView } from './users.js';
