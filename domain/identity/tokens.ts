//! Single-use tokens mailed in links (address verification, password reset, invitations): 32
//! random bytes, only their SHA-256 stored. Redeeming is claim, work, complete: a claim is one
//! guarded update, so two requests with one token cannot both proceed; a claim that never
//! completed (its process died) may be taken again after CLAIM_RETRY_MS, and the work is written
//! to be safe to redo, so a crash neither spends a token for nothing nor runs it twice.
import type { Db } from 'mongodb';
import { randomToken, sha256Hex } from '../../lib/ids.js';
import { collections } from '../../lib/mongo.js';
import type { AuthTokenDoc, TokenPurpose } from './documents.js';

/** A claim older than this without completion belongs to a request that died. */
const CLAIM_RETRY_MS = 60_000;

/** How long each kind of link works (docs/API.md, "People" and "Teams"). */
export const TOKEN_LIFETIME_MS: Record<TokenPurpose, number> = {
  signup: 24 * 60 * 60_000,
  password_reset: 30 * 60_000,
  invitation: 7 * 24 * 60 * 60_000,
};

export type TokenFields = Omit<
  AuthTokenDoc,
  '_id' | 'purpose' | 'email' | 'createdAt' | 'expiresAt' | 'claimedAt' | 'completedAt' | 'revokedAt'
>;

export function createTokens(db: Db) {
  const { authTokens } = collections(db);

  return {
    /** A new token for `email`; the token itself is returned once and kept nowhere. */
    async issue(
      purpose: TokenPurpose,
      email: string,
      fields: TokenFields,
      now = new Date(),
    ): Promise<{ token: string; doc: AuthTokenDoc }> {
      const token = randomToken(32);
      const doc: AuthTokenDoc = {
        ...fields,
        _id: sha256Hex(token),
        purpose,
        email,
        createdAt: now,
        expiresAt: new Date(now.getTime() + TOKEN_LIFETIME_MS[purpose]),
        claimedAt: null,
        completedAt: null,
        revokedAt: null,
      };
      await authTokens.insertOne(doc);
      return { token, doc };
    },

    /** Takes a live token for this request, or null: unknown, of another purpose, expired, used, revoked or being used. */
    claim(purpose: TokenPurpose, token: string, now = new Date()): Promise<AuthTokenDoc | null> {
      if (typeof token !== 'string' || token.length === 0 || token.length > 200) return Promise.resolve(null);
      return authTokens.findOneAndUpdate(
        {
          _id: sha256Hex(token),
          purpose,
          expiresAt: { $gt: now },
          completedAt: null,
          revokedAt: null,
          $or: [{ claimedAt: null }, { claimedAt: { $lt: new Date(now.getTime() - CLAIM_RETRY_MS) } }],
        },
        { $set: { claimedAt: now } },
        { returnDocument: 'after' },
      );
    },

    /** The token is spent: no claim takes it again. */
    complete: (doc: AuthTokenDoc, now = new Date()) => authTokens.updateOne({ _id: doc._id }, { $set: { completedAt: now } }),

    /** Lets a claimed token be used again at once (the work refused it for a reason the person can fix). */
    release: (doc: AuthTokenDoc) => authTokens.updateOne({ _id: doc._id, completedAt: null }, { $set: { claimedAt: null } }),

    /** Tokens of `purpose` mailed to `email` since `since`: the mail limit per address. */
    countSince: (purpose: TokenPurpose, email: string, since: Date) =>
      authTokens.countDocuments({ email, purpose, createdAt: { $gte: since } }),

    /** Ends every live token of `purpose` for `email` (a reset done ends the other reset links). */
    revokeAll: (purpose: TokenPurpose, email: string, now = new Date()) =>
      authTokens.updateMany({ email, purpose, completedAt: null, expiresAt: { $gt: now } }, { $set: { revokedAt: now } }),
  };
}

export type Tokens = ReturnType<typeof createTokens>;
