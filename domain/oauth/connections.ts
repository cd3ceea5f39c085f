//! Connected apps: an account's grants to OAuth clients (agents), each made by a member on the
//! consent page and acting with that member's role as it is at each call. Connecting and revoking
//! are in the audit log; a revocation removes the grant's codes and tokens from oidc-provider's
//! store in the same step, so its next request on any replica is refused.
import type { Db } from 'mongodb';
import { auditDraft, createAuditLog, type AuditContext } from '../audit/index.js';
import { collections } from '../../lib/mongo.js';
import type { OAuthConnectionDoc } from './documents.js';

/** lastUsedAt is a display value: written at most once a minute per connection. */
const LAST_USED_EVERY_MS = 60_000;

export type NewConnection = Pick<OAuthConnectionDoc, '_id' | 'accountId' | 'userId' | 'clientId' | 'clientName' | 'redirectHost'>;

/** A connection as the account API answers it. */
export const connectionView = (doc: OAuthConnectionDoc) => ({
  id: doc._id,
  clientId: doc.clientId,
  clientName: doc.clientName,
  redirectHost: doc.redirectHost,
  userId: doc.userId,
  createdAt: doc.createdAt,
  lastUsedAt: doc.lastUsedAt,
});

export function createConnections(db: Db) {
  const { oauthConnections, oauthStore } = collections(db);
  const auditLog = createAuditLog(db);

  return {
    /** Records a member's consent, with its `oauth_app.authorized` entry. */
    async create(fields: NewConnection, audit: AuditContext, now = new Date()): Promise<OAuthConnectionDoc> {
      const doc: OAuthConnectionDoc = {
        ...fields,
        createdAt: now,
        lastUsedAt: null,
        revokedAt: null,
        auditDrafts: [
          auditDraft(
            audit,
            fields.accountId,
            'oauth_app.authorized',
            { type: 'oauth_app', id: fields._id },
            { clientId: [null, fields.clientId], clientName: [null, fields.clientName], userId: [null, fields.userId] },
            now,
          ),
        ],
      };
      await oauthConnections.insertOne(doc);
      await auditLog.flush('connection', doc._id);
      return doc;
    },

    /** The live connection of a grant, or null (unknown or revoked). */
    async live(id: string): Promise<OAuthConnectionDoc | null> {
      return oauthConnections.findOne({ _id: id, revokedAt: null }, { projection: { auditDrafts: 0 } });
    },

    /** An account's live connections, newest first. */
    async list(accountId: string): Promise<OAuthConnectionDoc[]> {
      return oauthConnections
        .find({ accountId, revokedAt: null }, { projection: { auditDrafts: 0 } })
        .sort({ createdAt: -1 })
        .toArray();
    },

    /**
     * Ends a connection: marked revoked with its `oauth_app.revoked` entry, then its grant's codes and
     * tokens removed. Null when the account has no such live connection.
     */
    async revoke(accountId: string, id: string, audit: AuditContext, now = new Date()): Promise<OAuthConnectionDoc | null> {
      const draft = auditDraft(
        audit,
        accountId,
        'oauth_app.revoked',
        { type: 'oauth_app', id },
        { revokedAt: [null, now.toISOString()] },
        now,
      );
      const doc = await oauthConnections.findOneAndUpdate(
        { _id: id, accountId, revokedAt: null },
        { $set: { revokedAt: now }, $push: { auditDrafts: draft } },
        { returnDocument: 'after', projection: { auditDrafts: 0 } },
      );
      if (!doc) {
        // Revoked by another request first, whose removal of the tokens may not have happened yet.
        if (await oauthConnections.findOne({ _id: id, accountId }, { projection: { _id: 1 } }))
          await oauthStore.deleteMany({ grantId: id });
        return null;
      }
      await oauthStore.deleteMany({ grantId: id });
      await auditLog.flush('connection', id);
      return doc;
    },

    /**
     * Ends a connection whose grant the authorization server ended itself (a used refresh token
     * presented again, or the app revoking its refresh token), with its `oauth_app.revoked` entry.
     */
    async ended(id: string, reason: string, audit: AuditContext, now = new Date()): Promise<void> {
      const doc = await oauthConnections.findOne({ _id: id, revokedAt: null }, { projection: { accountId: 1 } });
      if (!doc) return;
      const draft = auditDraft(audit, doc.accountId, 'oauth_app.revoked', { type: 'oauth_app', id }, { reason: [null, reason] }, now);
      const ended = await oauthConnections.updateOne(
        { _id: id, revokedAt: null },
        { $set: { revokedAt: now }, $push: { auditDrafts: draft } },
      );
      if (ended.modifiedCount) await auditLog.flush('connection', id);
    },

    /** Notes a use (not awaited by the caller's answer; at most once a minute). */
    touch(doc: OAuthConnectionDoc, now = new Date()): void {
      if (doc.lastUsedAt && now.getTime() - doc.lastUsedAt.getTime() < LAST_USED_EVERY_MS) return;
      oauthConnections.updateOne({ _id: doc._id }, { $set: { lastUsedAt: now } }).catch(() => {});
    },
  };
}

export type Connections = ReturnType<typeof createConnections>;
