//! A bucket the customer names (a destination): writes through the AWS SDK's S3 client whose every
//! connection goes only to an address the target guard checked. The endpoint's own host is checked
//! before each use (an IP literal never reaches a lookup); every name the SDK connects to (the
//! endpoint's, or AWS's virtual-hosted `<bucket>.s3.<region>.amazonaws.com`) is resolved by the
//! guard and the socket pinned to the checked address. The SDK follows no redirects. Loaded on
//! demand (`await import`), so a process that writes to no destination never loads the AWS SDK.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { DeleteObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { ServiceError } from '../contracts/errors.js';
import type { TargetGuard } from './target-guard.js';

export interface BucketAddress {
  bucket: string;
  /** An S3-compatible endpoint's origin (path-style requests); null for AWS S3 in `region`. */
  endpoint: string | null;
  region: string;
}

export interface BucketCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** What S3 (or the way to it) said when it refused: `reason` is safe to show to the bucket's owner. */
export class BucketRefused extends Error {
  override readonly name = 'BucketRefused';
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
  }
}

/** The longest one write may take, connection and retry included. */
export const BUCKET_WRITE_TIMEOUT_MS = 15_000;
/** S3's answers can be long (an HTML error page); a reason keeps this many characters. */
const REASON_MAX = 300;

export interface Bucket {
  /** Writes `bytes` at `key`; throws BucketRefused with S3's reason. */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** Deletes `key`; throws BucketRefused. */
  remove(key: string): Promise<void>;
  /** Closes the client's connections. */
  close(): void;
}

/** AWS S3's regional endpoint: what the SDK reaches when the destination names no endpoint. */
export function awsEndpoint(region: string): string {
  return `https://s3.${region}.amazonaws.com`;
}

export function openBucket(address: BucketAddress, credentials: BucketCredentials, guard: TargetGuard): Bucket {
  const endpoint = new URL(address.endpoint ?? awsEndpoint(address.region));
  // Throws for an IP literal the guard refuses: Node connects to one without any lookup.
  const checked = guard.checkUrl(endpoint, { schemes: ['http', 'https'] });
  const lookup = guardedLookup(guard, checked.port);
  const client = new S3Client({
    region: address.region,
    endpoint: address.endpoint ?? undefined,
    // S3-compatible servers (MinIO, Ceph, S3Proxy) take the bucket in the path; AWS in the name.
    forcePathStyle: address.endpoint !== null,
    credentials,
    maxAttempts: 2,
    requestHandler: {
      httpAgent: new http.Agent({ lookup }),
      httpsAgent: new https.Agent({ lookup }),
      connectionTimeout: 5_000,
      requestTimeout: BUCKET_WRITE_TIMEOUT_MS,
    },
  });
  const send = async (command: PutObjectCommand | DeleteObjectCommand) => {
    try {
      await client.send(command as PutObjectCommand, { abortSignal: AbortSignal.timeout(BUCKET_WRITE_TIMEOUT_MS) });
    } catch (err) {
      throw new BucketRefused(refusalReason(err), { cause: err });
    }
  };
  return {
    put: (key, bytes, contentType) =>
      send(
        new PutObjectCommand({ Bucket: address.bucket, Key: key, Body: bytes, ContentLength: bytes.byteLength, ContentType: contentType }),
      ),
    remove: (key) => send(new DeleteObjectCommand({ Bucket: address.bucket, Key: key })),
    close: () => client.destroy(),
  };
}

/** Every name resolved by the guard for `port`, the socket pinned to the address it checked. */
function guardedLookup(guard: TargetGuard, port: number): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    guard.resolveTarget(hostname, port).then(
      (target) =>
        options?.all ? callback(null, [{ address: target.address, family: target.family }]) : callback(null, target.address, target.family),
      (err: unknown) => callback(err),
    );
  }) as unknown as LookupFunction;
}

/** S3's error code and message, the guard's refusal, or the network failure, in one line. */
export function refusalReason(err: unknown): string {
  const guardRefusal = findCause(err, (e) => e instanceof ServiceError);
  if (guardRefusal instanceof ServiceError) return cut(`${guardRefusal.code}: ${guardRefusal.message}`);
  if (err instanceof S3ServiceException) {
    const status = err.$metadata?.httpStatusCode;
    // A server that sends no parsable error body leaves the SDK with "UnknownError".
    const message = err.message && err.message !== 'UnknownError' ? err.message : `HTTP ${status ?? 'error'}`;
    return cut(`${err.name}: ${message}`);
  }
  const e = err as (Error & { code?: string }) | undefined;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timed out';
  if (e?.code) return cut(`could not connect: ${e.code}`);
  return cut(e?.message || 'the write failed');
}

function findCause(err: unknown, match: (e: unknown) => boolean): unknown {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) if (match(e)) return e;
  return undefined;
}

const cut = (text: string) => (text.length > REASON_MAX ? `${text.slice(0, REASON_MAX - 1)}…` : text);
