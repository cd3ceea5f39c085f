//! The account's destinations as records: the bucket's address in clear, its secret access key
//! sealed with SECRET_KEY and bound to the destination's id, opened only by the worker that writes.
import type { Db } from 'mongodb';
import { collections, viewOf } from '../../lib/mongo.js';
import type { AuditDraft } from '../account-documents.js';
import type { DestinationDoc } from './documents.js';
import { open, seal } from '../../lib/sealed.js';
import type { BucketAddress, BucketCredentials } from '../../lib/s3-bucket.js';

/** `dst_` + 22 base62 characters (lib/ids.ts newId). */
export const DESTINATION_ID = /^dst_[0-9A-Za-z]{22}$/;

/** The sealed secret opens only on its own destination: a copied ciphertext does not open elsewhere. */
const secretAad = (id: string) => `destination-secret:${id}`;

/** What a new destination is made of, as the owner gave it (validated). */
export interface DestinationFields extends BucketAddress {
  type: 's3';
  prefix: string;
  accessKeyId: string;
}

/** The destination as the account API shows it (never the secret). */
export const publicDestination = (doc: DestinationDoc) =>
  viewOf(doc, ['type', 'bucket', 'prefix', 'endpoint', 'region', 'accessKeyId', 'createdAt']);

export type PublicDestination = ReturnType<typeof publicDestination>;

export function createDestinationStore(db: Db, secretKey: Buffer) {
  const { destinations } = collections(db);
  return {
    /** Stores it with its creation's audit entry (`audit`), in the one insert. */
    async create(
      id: string,
      accountId: string,
      fields: DestinationFields,
      secretAccessKey: string,
      audit: AuditDraft,
    ): Promise<DestinationDoc> {
      const doc: DestinationDoc = {
        _id: id,
        accountId,
        type: fields.type,
        bucket: fields.bucket,
        prefix: fields.prefix,
        endpoint: fields.endpoint,
        region: fields.region,
        accessKeyId: fields.accessKeyId,
        secretSealed: seal(secretKey, secretAccessKey, secretAad(id)),
        createdAt: audit.at,
      };
      await destinations.insertOne({ ...doc, auditDrafts: [audit] });
      return doc;
    },

    count: (accountId: string) => destinations.countDocuments({ accountId }),

    list: (accountId: string) => destinations.find({ accountId }).sort({ createdAt: 1, _id: 1 }).toArray(),

    /** The destination when it belongs to the account, else null. */
    get: (accountId: string, id: string) => destinations.findOne({ _id: id, accountId }),

    /** Deletes it; false when the account has none with that id. */
    async remove(accountId: string, id: string): Promise<boolean> {
      return (await destinations.deleteOne({ _id: id, accountId })).deletedCount > 0;
    },

    /** The key pair that writes: only the worker making the write needs it, only in memory. */
    credentialsOf: (doc: DestinationDoc): BucketCredentials => ({
      accessKeyId: doc.accessKeyId,
      secretAccessKey: open<string>(secretKey, doc.secretSealed, secretAad(doc._id)),
    }),
  };
}

export type DestinationStore = ReturnType<typeof createDestinationStore>;
