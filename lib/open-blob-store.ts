//! The blob store `BLOB_STORE_URL` names, opened: the S3 one is loaded only when named, so a
//! process that does not use it never loads the AWS SDK.
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Db } from 'mongodb';
import { ConfigError } from './config.js';
import { DatabaseBlobStore, DirectoryBlobStore, type BlobStore } from './blob-store.js';

/**
 * The store `BLOB_STORE_URL` names: `file:///abs/dir`, `s3://bucket[/prefix]` (endpoint and
 * credentials from the S3_* variables, docs/CONFIGURATION.md), or unset for the database.
 */
export async function openBlobStore(url: string | undefined, db: Db, env: NodeJS.ProcessEnv = process.env): Promise<BlobStore> {
  if (!url) return new DatabaseBlobStore(db);
  if (url.startsWith('file://')) {
    const dir = fileURLToPath(url);
    await mkdir(dir, { recursive: true });
    return new DirectoryBlobStore(dir);
  }
  if (url.startsWith('s3://')) {
    const { S3BlobStore } = await import('./blob-store-s3.js');
    return S3BlobStore.fromUrl(url, env);
  }
  throw new ConfigError(`BLOB_STORE_URL must be file:///<directory>, s3://<bucket>[/<prefix>] or unset (the database), got "${url}"`);
}
