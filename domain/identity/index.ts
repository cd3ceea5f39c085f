//! People: sign-up, sign-in, sessions, passwords and invitations (domain/identity/), put together.
import type { Db } from 'mongodb';
import type { Accounts } from '../accounts.js';
import { createIdentityContext, type IdentitySettings, type MailSender } from './context.js';
import { createSignup } from './signup.js';
import { createSignin } from './signin.js';
import { createPasswords } from './passwords.js';
import { createInvitations } from './invitations.js';
import { createPasskeys } from './passkeys.js';

export type { IdentitySettings, MailSender, RequestFacts } from './context.js';

export function createIdentity(deps: { db: Db; accounts: Accounts; mailer: MailSender; settings: IdentitySettings }) {
  const ctx = createIdentityContext(deps);
  const signin = createSignin(ctx);
  return {
    ...ctx,
    signup: createSignup(ctx),
    signin,
    passwords: createPasswords(ctx, signin),
    invitations: createInvitations(ctx, signin),
    passkeys: createPasskeys(ctx, signin),
  };
}

export type Identity = ReturnType<typeof createIdentity>;
