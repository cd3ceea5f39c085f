//! Render link signing secrets of an account (`lks_...`): generated here, shown once, stored only
//! sealed with SECRET_KEY (the server must verify HMACs, so a digest would not do). Several may be
//! live at once, so the owner rotates by creating a new one before retiring the old; a retired
//! secret stops verifying within VERIFY_CACHE_MS on every API instance.
import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { newId } from '../lib/ids.js';
import { collections } from '../lib/mongo.js';
import type { LinkSecretDoc } from './account-documents.js';
import { open, seal } from '../lib/sealed.js';
import { auditDraft, createAuditLog, type AuditContext } from './audit/index.js';

export const LINK_SECRET_PREFIX = 'lksec_';
/** Live secrets an account may hold at once: enough to rotate, few enough to review. */
export const MAX_LIVE_LINK_SECRETS = 10;
/** A retirement is visible within 1 s everywhere (like a revoked key): the cache stays well under it. */
const VERIFY_CACHE_MS = 500;

/** The sealed secret is bound to its id: a copied ciphertext does not open under another. */
const secretAad = (id: string) => `link-secret:${id}`;

/** The secret as the account API lists it (never the secret). */
export function publicLinkSecret(doc: LinkSecretDoc) {
  return { id: doc._id, createdAt: doc.createdAt, retiredAt: doc.retiredAt };
}

/** What a link is verified with: the account it charges and the plaintext secret. */
export interface LinkVerifier {
  accountId: string;
  secret: string;
}

export function createLinkSecrets(db: Db, secretKey: Buffer) {
  const { linkSecrets } = collections(db);
  const cache = new Map<string, { verifier: LinkVerifier | null; at: number }>();
  const auditLog = createAuditLog(db);
  const opened = (doc: LinkSecretDoc) => open<string>(secretKey, doc.secretSealed, secretAad(doc._id));

  return {
    /** A new live secret, or null when the account already holds MAX_LIVE_LINK_SECRETS. Its audit entry is written with it. */
    async create(accountId: string, audit: AuditContext): Promise<{ doc: LinkSecretDoc; secret: string } | null> {
      const live = await linkSecrets.countDocuments({ accountId, retiredAt: null });
      if (live >= MAX_LIVE_LINK_SECRETS) return null;
      const id = newId('lks');
      const secret = LINK_SECRET_PREFIX + randomBytes(32).toString('base64url');
      const createdAt = new Date();
      const draft = auditDraft(audit, accountId, 'link_secret.created', { type: 'link_secret', id }, {}, createdAt);
      const doc: LinkSecretDoc = {
        _id: id,
        accountId,
        secretSealed: seal(secretKey, secret, secretAad(id)),
        createdAt,
        retiredAt: null,
        auditDrafts: [draft],
      };
      await linkSecrets.insertOne(doc);
      await auditLog.flush('linkSecret', id);
      return { doc, secret };
    },

    /** Every secret of the account, retired ones included, newest first. */
    list: (accountId: string) => linkSecrets.find({ accountId }).sort({ createdAt: -1, _id: -1 }).toArray(),

    /** Retires the secret (again: the same answer, and no second audit entry); null when it is not the account's. */
    async retire(accountId: string, id: string, audit: AuditContext): Promise<LinkSecretDoc | null> {
      const now = new Date();
      const draft = auditDraft(audit, accountId, 'link_secret.retired', { type: 'link_secret', id }, { retiredAt: [null, now] }, now);
      const { modifiedCount } = await linkSecrets.updateOne(
        { _id: id, accountId, retiredAt: null },
        { $set: { retiredAt: now }, $push: { auditDrafts: draft } },
      );
      cache.delete(id);
      if (modifiedCount) await auditLog.flush('linkSecret', id);
      return linkSecrets.findOne({ _id: id, accountId }, { projection: { auditDrafts: 0 } });
    },

    /** The account's newest live secret, opened (to sign a link for the owner), or one named by id. */
    async signer(accountId: string, id?: string): Promise<{ id: string; secret: string } | null> {
      const doc = await linkSecrets.findOne(
        { accountId, retiredAt: null, ...(id ? { _id: id } : {}) },
        { sort: { createdAt: -1, _id: -1 } },
      );
      return doc ? { id: doc._id, secret: opened(doc) } : null;
    },

    /** What verifies links signed with secret `id`; null when it is unknown or retired. */
    async verifier(id: string): Promise<LinkVerifier | null> {
      const hit = cache.get(id);
      if (hit && Date.now() - hit.at < VERIFY_CACHE_MS) return hit.verifier;
      const doc = await linkSecrets.findOne({ _id: id });
      const verifier = doc && !doc.retiredAt ? { accountId: doc.accountId, secret: opened(doc) } : null;
      if (cache.size > 10_000) cache.clear();
      cache.set(id, { verifier, at: Date.now() });
      return verifier;
    },
  };
}

export type LinkSecrets = ReturnType<typeof createLinkSecrets>;
