//! oidc-provider's storage on the service's database (its `adapter`): every replica of the API sees
//! the same clients, codes, tokens and grants, so a token revoked on one is refused by all at once.
//! Ids are kept only as digests (a code's or a token's id is the secret it is), and expiry is read
//! on each find: the database keeps no TTL index, the sweeper removes what has expired.
import type { Db } from 'mongodb';
import { sha256Hex } from '../../lib/ids.js';
import { collections } from '../../lib/mongo.js';
import type { OAuthStoreDoc } from './documents.js';

type Payload = Record<string, unknown>;

/** The adapter interface oidc-provider calls, one instance per model (`AccessToken`, `Grant`, ...). */
export interface OAuthStoreAdapter {
  upsert(id: string, payload: Payload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Payload | undefined>;
  findByUid(uid: string): Promise<Payload | undefined>;
  findByUserCode(userCode: string): Promise<Payload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

const digestOf = (kind: string, id: string) => sha256Hex(`${kind}:${id}`);

/** The adapter class oidc-provider is configured with, on `db`. */
export function oauthStoreAdapter(db: Db): new (kind: string) => OAuthStoreAdapter {
  const { oauthStore } = collections(db);

  return class MongoOAuthStore implements OAuthStoreAdapter {
    constructor(private readonly kind: string) {}

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const { uid, grantId } = payload;
      const kept = { ...payload };
      // A session is found by its uid too, and must come back with its id; nothing a session's id
      // opens here goes past the consent page, which asks for the person's dashboard session.
      if (this.kind !== 'Session') delete kept.jti;
      const doc: OAuthStoreDoc = {
        _id: digestOf(this.kind, id),
        kind: this.kind,
        payload: kept,
        ...(typeof grantId === 'string' ? { grantId } : {}),
        ...(typeof uid === 'string' ? { uidDigest: digestOf(this.kind, uid) } : {}),
        expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
      };
      await oauthStore.replaceOne({ _id: doc._id }, doc, { upsert: true });
    }

    private live(doc: OAuthStoreDoc | null, id: string | undefined): Payload | undefined {
      if (!doc || (doc.expiresAt && doc.expiresAt.getTime() <= Date.now())) return undefined;
      return id === undefined || this.kind === 'Session' ? doc.payload : { ...doc.payload, jti: id };
    }

    async find(id: string): Promise<Payload | undefined> {
      return this.live(await oauthStore.findOne({ _id: digestOf(this.kind, id) }), id);
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      return this.live(await oauthStore.findOne({ uidDigest: digestOf(this.kind, uid) }), undefined);
    }

    async findByUserCode(): Promise<Payload | undefined> {
      return undefined; // the device flow is not offered
    }

    async consume(id: string): Promise<void> {
      await oauthStore.updateOne({ _id: digestOf(this.kind, id) }, { $set: { 'payload.consumed': Math.floor(Date.now() / 1000) } });
    }

    async destroy(id: string): Promise<void> {
      await oauthStore.deleteOne({ _id: digestOf(this.kind, id) });
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await oauthStore.deleteMany({ grantId });
    }
  };
}

/** Removes what oidc-provider kept past its expiry; returns how many. */
export async function sweepOAuthStore(db: Db, now: number): Promise<number> {
  return (await collections(db).oauthStore.deleteMany({ expiresAt: { $lt: new Date(now) } })).deletedCount;
}
