//! Accounts and their credentials: opening an account, issuing and revoking API keys.
import type { Db } from 'mongodb';
import { newCredential } from './credentials.js';
import { createEventRecorder, newEvent, type EventSink } from './events.js';
import { newId } from '../lib/ids.js';
import { collections } from '../lib/mongo.js';
import type { AccountPlan, CredentialDoc, CredentialKind } from '../lib/mongo-documents.js';
import { newAccountDoc, welcomeGrantId } from './ledger.js';

export interface IssuedCredential {
  id: string;
  name: string | null;
  prefix: string;
  /** The credential itself: shown once, never stored. */
  key: string;
  createdAt: Date;
}

export function publicKey(doc: CredentialDoc) {
  return { id: doc._id, name: doc.name, prefix: doc.prefix, createdAt: doc.createdAt, lastUsedAt: doc.lastUsedAt, revokedAt: doc.revokedAt };
}

export function createAccounts(db: Db, onEvent?: EventSink) {
  const { accounts, credentials, grants } = collections(db);
  const record = createEventRecorder(db, onEvent);

  async function issue(accountId: string, kind: CredentialKind, name: string | null): Promise<IssuedCredential> {
    const cred = newCredential(kind);
    const doc: CredentialDoc = {
      _id: newId(kind === 'api_key' ? 'key' : 'own'),
      accountId,
      kind,
      name,
      prefix: cred.prefix,
      digest: cred.digest,
      createdAt: new Date(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await credentials.insertOne(doc);
    return { id: doc._id, name, prefix: doc.prefix, key: cred.secret, createdAt: doc.createdAt };
  }

  return {
    /** Opens an account with its welcome grant (`credits`, never expiring) and, when given, its plan. */
    async open(fields: { name?: string; email?: string; credits: number; plan?: AccountPlan }) {
      const now = new Date();
      const account = newAccountDoc({ id: newId('acc'), name: fields.name, email: fields.email, credits: fields.credits, now, plan: fields.plan });
      // The record first: an account never holds credits of a grant with no record.
      if (fields.credits > 0) {
        await grants.insertOne({
          _id: welcomeGrantId(account._id), accountId: account._id, amount: fields.credits, reason: 'welcome', expiresAt: null, idempotencyKey: null,
          createdAt: now, appliedAt: now, balanceAfter: fields.credits, expiredAt: null,
        });
      }
      await accounts.insertOne(account);
      const ownerToken = await issue(account._id, 'owner_token', 'dashboard');
      const apiKey = await this.createKey(account._id, 'default');
      return { account, ownerToken: ownerToken.key, apiKey };
    },

    get: (accountId: string) => accounts.findOne({ _id: accountId }),

    /** Issues an API key and records `api_key.created`. */
    async createKey(accountId: string, name: string | null): Promise<IssuedCredential> {
      const key = await issue(accountId, 'api_key', name);
      await record(newEvent(accountId, 'api_key.created', { keyId: key.id, name: key.name, prefix: key.prefix }));
      return key;
    },

    listKeys: (accountId: string) =>
      credentials.find({ accountId, kind: 'api_key' }).sort({ createdAt: -1 }).toArray(),

    /**
     * Revokes an API key. Only the request that flips `revokedAt` records `api_key.revoked`,
     * so the event fires once however often revocation is requested. Null when no such key.
     */
    async revokeKey(accountId: string, keyId: string): Promise<{ doc: CredentialDoc; digest: string } | null> {
      const now = new Date();
      const flipped = await credentials.findOneAndUpdate(
        { _id: keyId, accountId, kind: 'api_key', revokedAt: null },
        { $set: { revokedAt: now } },
        { returnDocument: 'after' },
      );
      if (flipped) {
        await record(newEvent(accountId, 'api_key.revoked', { keyId, name: flipped.name, prefix: flipped.prefix }));
        return { doc: flipped, digest: flipped.digest };
      }
      const existing = await credentials.findOne({ _id: keyId, accountId, kind: 'api_key' });
      return existing ? { doc: existing, digest: existing.digest } : null;
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
