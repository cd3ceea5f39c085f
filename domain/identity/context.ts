//! What every identity operation needs: the stores, the mailer, the settings, and who is asking.
import type { Db } from 'mongodb';
import type { Accounts } from '../accounts/index.js';
import type { AuditContext } from '../audit/index.js';
import { createSessions, type Sessions, type SessionTimeouts } from './sessions.js';
import { createSigninThrottle, type SigninThrottle } from './throttle.js';
import { createTokens, type Tokens } from './tokens.js';
import { createUsers, type Users } from './users.js';
import type { Mail } from './mail-texts.js';
import type { EventSink } from '../events/index.js';
import type { OidcProvider } from '../../lib/config.js';
import { createMemberships, type Memberships, type ProviderName } from '../membership/index.js';

/** Sends a mail durably (domain/mail/outbox.ts); a repeat of `idempotencyKey` sends nothing more. */
export interface MailSender {
  send(message: Mail & { to: string }, opts: { idempotencyKey: string }): Promise<void>;
}

export interface IdentitySettings {
  /** PUBLIC_BASE_URL: every link in a mail is built on it. */
  baseUrl: string;
  signup: 'open' | 'off';
  /** FREE_CREDITS: the welcome grant, once per mailbox. */
  freeCredits: number;
  timeouts: SessionTimeouts;
}

/** Where a request came from: its session's and its audit entries' `ip` and `userAgent`. */
export interface RequestFacts {
  ip: string | null;
  userAgent: string | null;
}

export interface IdentityContext {
  db: Db;
  accounts: Accounts;
  mailer: MailSender;
  settings: IdentitySettings;
  /** OIDC_PROVIDERS, as people see them: what a refusal for an account's required provider names. */
  providers: readonly ProviderName[];
  users: Users;
  memberships: Memberships;
  sessions: Sessions;
  tokens: Tokens;
  throttle: SigninThrottle;
}

export interface IdentityDeps {
  db: Db;
  accounts: Accounts;
  mailer: MailSender;
  settings: IdentitySettings;
  /** Where `member.joined` and `member.removed` go (the webhook fan-out). */
  onEvent?: EventSink;
  /** OIDC_PROVIDERS: the identity providers people may sign in through (none by default). */
  oidcProviders?: readonly OidcProvider[];
}

export function createIdentityContext({ onEvent, oidcProviders = [], ...deps }: IdentityDeps): IdentityContext {
  return {
    ...deps,
    providers: oidcProviders.map(({ id, name }) => ({ id, name })),
    users: createUsers(deps.db),
    memberships: createMemberships(deps.db, onEvent),
    sessions: createSessions(deps.db, deps.settings.timeouts),
    tokens: createTokens(deps.db),
    throttle: createSigninThrottle(deps.db),
  };
}

/** A person acting for themselves, as the audit log records them. */
export const userActing = (userId: string, facts: RequestFacts): AuditContext => ({
  actor: { type: 'user', credential: null, userId },
  ip: facts.ip,
  userAgent: facts.userAgent,
});
