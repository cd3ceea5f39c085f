//! Who is a member of which account, with which role, and the ways of signing in that an
//! account's sign-in policy judges.
import type { Collection } from 'mongodb';
import type { AuditDraft } from '../account-documents.js';

declare module '../../lib/mongo.js' {
  /** Each collection of this file's documents (lib/mongo.ts names them). */
  interface Collections {
    memberships: Collection<MembershipDoc>;
  }
}

/** A member's part in an account (docs/API.md, "Teams"): what the account routes let them do. */
export type Role = 'owner' | 'admin' | 'developer' | 'billing' | 'viewer';

/** A user's membership of an account, `_id` `<accountId>:<userId>`. */
export interface MembershipDoc {
  _id: string;
  accountId: string;
  userId: string;
  role: Role;
  joinedAt: Date;
  /** Audit entries of the joining and of role changes, written with them, until they are in the chain. */
  auditDrafts?: AuditDraft[];
}

/** How a session was signed in. */
export type SignInMethod = 'password' | 'passkey' | 'verification' | 'password_reset' | 'invitation' | 'oidc';
