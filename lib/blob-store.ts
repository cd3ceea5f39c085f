//! Where a call's big output waits for its answer: written once by the worker that made it, read by
//! the API that answers it (and by a repeat with the same Idempotency-Key, or `GET /calls/{id}`,
//! within 24 h), swept after. Only a key travels through Temporal. Three stores behind one small
//! interface, chosen by `BLOB_STORE_URL`: a directory the API and workers share (`file://`), an
//! S3-compatible bucket (`s3://`, lib/blob-store-s3.ts), or the service's database (GridFS, the
//! default, which needs nothing more but writes every chunk as a journaled document);
//! lib/open-blob-store.ts opens the one configured.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { GridFSBucket, type Db } from 'mongodb';
import { deleteOlderThan, putBytes, readBytes } from './gridfs.js';

export interface BlobStore {
  /** Stores `bytes` under a new key. The key is returned only once every byte is readable. */
  put(bytes: Uint8Array): Promise<string>;
  /** The blob's bytes, or undefined when there is none under `key` (swept, or never written). */
  get(key: string): Promise<Buffer | undefined>;
  /** Deletes the blobs written before `olderThan`; returns how many. */
  sweep(olderThan: Date): Promise<number>;
  /**
   * A store of its own inside this one, for blobs with another retention (the render cache keeps
   * its images 30 days): this store's sweep never touches the area's blobs, nor the area's this one's.
   */
  area(name: string): BlobStore;
}

/** An area's name: lower-case words joined by `-` (a directory, an S3 prefix, a GridFS bucket suffix). */
const AREA = /^[a-z]+(-[a-z]+)*$/;

export function checkedArea(name: string): string {
  if (!AREA.test(name)) throw new Error(`a blob store area is lower-case words joined by "-", got "${name}"`);
  return name;
}

/**
 * A key names the hour it was written in, so a sweep drops whole hours without reading each
 * blob's date: `2026112413/` then 32 random hex characters.
 */
export function newBlobKey(now = new Date()): string {
  return `${hourOf(now)}/${randomBytes(16).toString('hex')}`;
}

const KEY = /^(\d{10})\/([0-9a-f]{32})$/;

/** The key's parts; undefined for anything not made by newBlobKey (never a path outside the store). */
export function parseBlobKey(key: string): { hour: string; name: string } | undefined {
  const m = KEY.exec(key);
  return m ? { hour: m[1]!, name: m[2]! } : undefined;
}

/** `yyyymmddhh` in UTC. */
export function hourOf(date: Date): string {
  return date.toISOString().slice(0, 13).replace(/[-T]/g, '');
}

/** The hours wholly before `olderThan` among `hours` (a blob of the cut-off's own hour may be younger). */
export function hoursBefore(hours: string[], olderThan: Date): string[] {
  const cutoff = hourOf(olderThan);
  return hours.filter((h) => /^\d{10}$/.test(h) && h < cutoff);
}

/**
 * A directory: each blob a file, written under a temporary name, flushed to disk and renamed, so a
 * process killed mid-write leaves no file under a key (only a temporary one, swept with its hour).
 */
export class DirectoryBlobStore implements BlobStore {
  constructor(private readonly dir: string) {}

  async put(bytes: Uint8Array): Promise<string> {
    const key = newBlobKey();
    const { hour, name } = parseBlobKey(key)!;
    const hourDir = path.join(this.dir, hour);
    await mkdir(hourDir, { recursive: true });
    const partial = path.join(hourDir, `${name}.partial`);
    const file = await open(partial, 'w');
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(partial, path.join(hourDir, name));
    return key;
  }

  async get(key: string): Promise<Buffer | undefined> {
    const parts = parseBlobKey(key);
    if (!parts) return undefined;
    try {
      return await readFile(path.join(this.dir, parts.hour, parts.name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async sweep(olderThan: Date): Promise<number> {
    let hours: string[];
    try {
      hours = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
    let removed = 0;
    for (const hour of hoursBefore(hours, olderThan)) {
      const files = await readdir(path.join(this.dir, hour)).catch(() => [] as string[]);
      removed += files.filter((f) => !f.endsWith('.partial')).length;
      await rm(path.join(this.dir, hour), { recursive: true, force: true });
    }
    return removed;
  }

  // Not an hour's name (yyyymmddhh), so this store's sweep passes it by.
  area(name: string): BlobStore {
    return new DirectoryBlobStore(path.join(this.dir, checkedArea(name)));
  }
}

/** The service's database (GridFS): a blob's chunks are written before its file document, which names the key. */
export class DatabaseBlobStore implements BlobStore {
  private readonly bucket: GridFSBucket;

  constructor(
    private readonly db: Db,
    private readonly bucketName = OUTPUT_BLOB_BUCKET,
  ) {
    this.bucket = new GridFSBucket(db, { bucketName });
  }

  async put(bytes: Uint8Array): Promise<string> {
    const key = newBlobKey();
    await putBytes(this.bucket, key, bytes);
    return key;
  }

  async get(key: string): Promise<Buffer | undefined> {
    const file = await this.bucket.find({ filename: key }, { limit: 1, projection: { _id: 1 } }).next();
    return file ? readBytes(this.bucket, file._id) : undefined;
  }

  sweep(olderThan: Date): Promise<number> {
    return deleteOlderThan(this.bucket, olderThan);
  }

  /** A bucket of its own: `output_blobs_render_cache` for `render-cache`. */
  area(name: string): BlobStore {
    return new DatabaseBlobStore(this.db, `${this.bucketName}_${checkedArea(name).replaceAll('-', '_')}`);
  }
}

export const OUTPUT_BLOB_BUCKET = 'output_blobs';
