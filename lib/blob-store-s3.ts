//! The S3-compatible store of lib/blob-store.ts: each blob one object at `<prefix>/<key>`, so the
//! hour that begins every key is a "directory" a sweep lists and empties whole. Loaded only when
//! BLOB_STORE_URL names a bucket (openBlobStore imports it on demand), so no other process loads
//! the AWS SDK.
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  paginateListObjectsV2,
  type ObjectIdentifier,
} from '@aws-sdk/client-s3';
import { ConfigError, s3Settings } from './config.js';
import { checkedArea, hoursBefore, newBlobKey, parseBlobKey, type BlobStore } from './blob-store.js';

/** DeleteObjects takes at most 1000 keys a request. */
const DELETE_BATCH = 1000;

export class S3BlobStore implements BlobStore {
  /** `prefix/`, or '' for the bucket's root. */
  private readonly base: string;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    prefix = '',
  ) {
    this.base = prefix ? `${prefix}/` : '';
  }

  /** Objects under `<prefix>/<name>/`: not an hour's name, so this store's sweep passes it by. */
  area(name: string): BlobStore {
    return new S3BlobStore(this.client, this.bucket, `${this.base}${checkedArea(name)}`);
  }

  /** `s3://bucket[/prefix]`, reached as the S3_* variables say (lib/config.ts s3Settings). */
  static fromUrl(url: string, env: NodeJS.ProcessEnv = process.env): S3BlobStore {
    const { bucket, prefix } = parseS3Url(url);
    const settings = s3Settings(env);
    const client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials, // undefined: the SDK's default chain
      // A store that stops answering must fail the call, not hold it until Temporal's timeout.
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
    });
    return new S3BlobStore(client, bucket, prefix);
  }

  /** One PutObject: S3 makes an object visible only once all of it is stored. */
  async put(bytes: Uint8Array): Promise<string> {
    const key = newBlobKey();
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.base + key,
        Body: bytes,
        ContentLength: bytes.byteLength,
        ContentType: 'application/octet-stream',
      }),
    );
    return key;
  }

  async get(key: string): Promise<Buffer | undefined> {
    if (!parseBlobKey(key)) return undefined;
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.base + key }));
      if (!out.Body) return Buffer.alloc(0);
      const bytes = await out.Body.transformToByteArray();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async sweep(olderThan: Date): Promise<number> {
    const hours: string[] = [];
    for await (const page of paginateListObjectsV2({ client: this.client }, { Bucket: this.bucket, Prefix: this.base, Delimiter: '/' })) {
      for (const { Prefix } of page.CommonPrefixes ?? []) {
        if (Prefix) hours.push(Prefix.slice(this.base.length, -1));
      }
    }
    let removed = 0;
    for (const hour of hoursBefore(hours, olderThan)) {
      for await (const page of paginateListObjectsV2({ client: this.client }, { Bucket: this.bucket, Prefix: `${this.base}${hour}/` })) {
        const keys: ObjectIdentifier[] = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
        for (let i = 0; i < keys.length; i += DELETE_BATCH) removed += await this.deleteBatch(keys.slice(i, i + DELETE_BATCH));
      }
    }
    return removed;
  }

  /** Deletes up to DELETE_BATCH objects; a key already gone counts as deleted (S3 reports it so). */
  private async deleteBatch(objects: ObjectIdentifier[]): Promise<number> {
    if (objects.length === 0) return 0;
    const out = await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: objects, Quiet: true } }));
    const errors = out.Errors ?? [];
    if (errors.length) {
      const first = errors[0]!;
      throw new Error(
        `S3 DeleteObjects failed for ${errors.length} of ${objects.length} objects in ${this.bucket}, first ${first.Key}: ${first.Code} ${first.Message ?? ''}`.trim(),
      );
    }
    return objects.length;
  }

  /** Closes the client's connections. */
  close(): void {
    this.client.destroy();
  }
}

/** `s3://bucket[/prefix]` into its parts; a prefix loses its outer slashes. */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`BLOB_STORE_URL is not a URL: "${url}"`);
  }
  if (parsed.protocol !== 's3:') throw new ConfigError(`an S3 blob store URL starts with s3://, got "${url}"`);
  if (parsed.username || parsed.password)
    throw new ConfigError('BLOB_STORE_URL must not carry credentials: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
  if (parsed.search || parsed.hash || parsed.port)
    throw new ConfigError(`BLOB_STORE_URL is s3://bucket[/prefix], got "${url}" (the endpoint goes in S3_ENDPOINT)`);
  const bucket = parsed.hostname;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new ConfigError(`"${bucket}" in BLOB_STORE_URL is not an S3 bucket name`);
  const prefix = decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, '');
  return { bucket, prefix };
}

/**
 * GetObject of a missing key: NoSuchKey, or a 404 without that code from a server that sends none.
 * A missing bucket is a misconfiguration, not a swept blob: it throws.
 */
function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return e?.name === 'NoSuchKey' || (e?.$metadata?.httpStatusCode === 404 && e.name !== 'NoSuchBucket');
}
