//! An account's own bucket for big outputs, its secret sealed.
import type { Collection } from 'mongodb';
import type { AuditDraft } from '../account-documents.js';

declare module '../../lib/mongo.js' {
  /** Each collection of this file's documents (lib/mongo.ts names them). */
  interface Collections {
    destinations: Collection<DestinationDoc>;
  }
}

export interface DestinationDoc {
  /** `dst_...` */
  _id: string;
  accountId: string;
  type: 's3';
  bucket: string;
  /** Key prefix without outer slashes; '' for the bucket's root. */
  prefix: string;
  /** An S3-compatible endpoint's origin; null for AWS S3 in `region`. */
  endpoint: string | null;
  region: string;
  accessKeyId: string;
  /** The secret access key sealed with SECRET_KEY (lib/sealed.ts), bound to the destination id. */
  secretSealed: string;
  createdAt: Date;
  /** Its creation's audit entry, written with it, until it is in the chain. */
  auditDrafts?: AuditDraft[];
}
