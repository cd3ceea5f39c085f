//! The documents of the authorization server (domain/oauth/): what oidc-provider keeps (clients
//! registered, interactions, codes, tokens, grants), under digests of their ids, and the
//! connections, each an account's grant to one client by one of its members.
import type { Collection } from 'mongodb';
import type { AuditDraft } from '../account-documents.js';

declare module '../../lib/mongo.js' {
  /** Each collection of this file's documents (lib/mongo.ts names them). */
  interface Collections {
    oauthStore: Collection<OAuthStoreDoc>;
    oauthConnections: Collection<OAuthConnectionDoc>;
  }
}

/**
 * One of oidc-provider's records (`kind`: its model, `AccessToken`, `Grant`, `Client`, ...). `_id`
 * is SHA-256 of the kind and the record's id, and `payload` leaves the id out, since for a code or a
 * token the id is the secret itself: what the database holds cannot be presented.
 */
export interface OAuthStoreDoc {
  _id: string;
  kind: string;
  payload: Record<string, unknown>;
  /** The grant a code or token belongs to: revoking the grant removes them all. */
  grantId?: string;
  /** SHA-256 of a session's or interaction's `uid`. */
  uidDigest?: string;
  expiresAt: Date | null;
}

/**
 * An account's grant to an OAuth client (an agent), made by a member on the consent page: the
 * client acts on this account with that member's role, as it is at each call. `_id` is
 * oidc-provider's grant id.
 */
export interface OAuthConnectionDoc {
  _id: string;
  accountId: string;
  /** Who consented; the client acts with their role on the account. */
  userId: string;
  clientId: string;
  /** What the client calls itself (its registration's `client_name`), as shown on the consent page. */
  clientName: string;
  /** Where the client's answers go (the host of its redirect URI), as shown on the consent page. */
  redirectHost: string;
  createdAt: Date;
  /** When a token of this connection was last presented; at most once a minute. */
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  auditDrafts?: AuditDraft[];
}
