//! The documents of people: users, sessions, single-use tokens, the sign-in throttle, welcome
//! mailboxes, passkeys and their challenges, identity provider sign-ins under way.
import type { Collection } from 'mongodb';
import type { AuditDraft } from '../account-documents.js';
import type { Role, SignInMethod } from '../membership/index.js';

declare module '../../lib/mongo.js' {
  /** Each collection of this file's documents (lib/mongo.ts names them). */
  interface Collections {
    users: Collection<UserDoc>;
    sessions: Collection<SessionDoc>;
    authTokens: Collection<AuthTokenDoc>;
    signinThrottle: Collection<SigninThrottleDoc>;
    welcomeMailboxes: Collection<WelcomeMailboxDoc>;
    passkeys: Collection<PasskeyDoc>;
    webauthnChallenges: Collection<WebauthnChallengeDoc>;
    oidcStates: Collection<OidcStateDoc>;
  }
}

/** A person (domain/identity/): an address they proved, a password hash and passkeys; a member of accounts. */
export interface UserDoc {
  _id: string;
  /** Normalized (domain/identity/email-address.ts); unique. */
  email: string;
  name: string | null;
  /** Argon2id in PHC form (domain/identity/password-hashing.ts); null for a person without a password. */
  passwordHash: string | null;
  createdAt: Date;
  passwordChangedAt: Date | null;
  lastSignInAt: Date | null;
  /** Audit entries of changes to the person, one per account they are in, until they are in the chains. */
  auditDrafts?: AuditDraft[];
}

/** A dashboard session: the cookie holds a random id; only its SHA-256 is here. */
export interface SessionDoc {
  /** The public id (`ses_...`), shown in the session list; never the cookie's value. */
  _id: string;
  /** Hex SHA-256 of the cookie's value; unique. */
  digest: string;
  userId: string;
  /** The account it acts on, and the member's role there (kept in step with the membership). */
  accountId: string;
  role: Role;
  method: SignInMethod;
  /** Method `oidc`: the id of the provider (OIDC_PROVIDERS) that signed the person in. */
  provider?: string;
  createdAt: Date;
  /** The last sign-in that proved who is there (a re-authentication moves it): sensitive changes need it recent. */
  authenticatedAt: Date;
  /** Written at most once a minute: the idle timeout counts from it. */
  lastSeenAt: Date;
  /** The absolute end (SESSION_MAX_DAYS after sign-in). */
  expiresAt: Date;
  endedAt: Date | null;
  ip: string | null;
  userAgent: string | null;
  auditDrafts?: AuditDraft[];
}

/** What a single-use token is for. */
export type TokenPurpose = 'signup' | 'password_reset' | 'invitation';

/** A single-use token mailed in a link: only its digest is stored. */
export interface AuthTokenDoc {
  /** Hex SHA-256 of the token. */
  _id: string;
  purpose: TokenPurpose;
  /** Normalized address it was mailed to. */
  email: string;
  createdAt: Date;
  expiresAt: Date;
  /** Taken by a request working on it; a claim older than a minute that never completed may be taken again. */
  claimedAt: Date | null;
  completedAt: Date | null;
  revokedAt: Date | null;
  /** Sign-up: the name and the password's hash. Reset: the user. Invitation: the account, role and inviter. */
  name?: string | null;
  passwordHash?: string;
  userId?: string;
  accountId?: string;
  role?: Role;
  invitedBy?: string | null;
  /** Invitation: its public id (`inv_...`), by which it is listed and revoked. */
  publicId?: string;
  /** Invitation: its audit entries (created, revoked), written with it, until they are in the chain. */
  auditDrafts?: AuditDraft[];
}

/** Failed sign-ins counted for an address (`address:<sha256>`) or a client (`client:<ip>`) in a 15-minute window. */
export interface SigninThrottleDoc {
  _id: string;
  windowStart: Date;
  failures: number;
  lockedUntil: Date | null;
}

/** A mailbox that has had its welcome grant (`a+x@host` and `a@host` are one): `_id` its key's SHA-256. */
export interface WelcomeMailboxDoc {
  _id: string;
  accountId: string;
  at: Date;
}

/** A WebAuthn credential of a user (a passkey). */
export interface PasskeyDoc {
  /** The credential id, base64url. */
  _id: string;
  userId: string;
  name: string;
  /** COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
  deviceType: string;
  backedUp: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A WebAuthn challenge handed out and not yet answered: single use, for 5 minutes. */
/**
 * A sign-in through an identity provider under way (domain/identity/oidc.ts), single use, for 10
 * minutes: `_id` the SHA-256 of its `state`. The PKCE verifier and the nonce stay here, server-side.
 */
export interface OidcStateDoc {
  _id: string;
  provider: string;
  nonce: string;
  codeVerifier: string;
  /** SHA-256 of the random value in the browser's short-lived cookie: the callback must come from the browser that started. */
  binding: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface WebauthnChallengeDoc {
  /** The challenge, base64url. */
  _id: string;
  purpose: 'registration' | 'authentication';
  /** Registration: the session's user. */
  userId: string | null;
  expiresAt: Date;
}
