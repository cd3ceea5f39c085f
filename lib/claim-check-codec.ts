//! Claim check: payloads over a threshold (screenshots, PDFs, large HTML) are stored in GridFS
//! and only a reference travels through Temporal, whose history holds at most 2 MB per blob.
//! The API and every worker use this codec, so each side can read what the other wrote.
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { GridFSBucket, ObjectId, type Db } from 'mongodb';
import { deleteOlderThan, putBytes, readBytes } from './gridfs.js';

export const CLAIM_CHECK_ENCODING = 'binary/claim-check';
export const DEFAULT_THRESHOLD_BYTES = 128 * 1024;
export const BLOB_BUCKET = 'blobs';

const ENCODING = new TextEncoder().encode(CLAIM_CHECK_ENCODING);

function isClaimCheck(p: Payload): boolean {
  const enc = p.metadata?.encoding;
  return !!enc && Buffer.from(enc).equals(Buffer.from(ENCODING));
}

export class ClaimCheckCodec implements PayloadCodec {
  private readonly bucket: GridFSBucket;

  constructor(
    db: Db,
    private readonly thresholdBytes = DEFAULT_THRESHOLD_BYTES,
  ) {
    this.bucket = new GridFSBucket(db, { bucketName: BLOB_BUCKET });
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((p) => ((p.data?.length ?? 0) > this.thresholdBytes ? this.store(p) : p)));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((p) => (isClaimCheck(p) ? this.load(p) : p)));
  }

  private async store(p: Payload): Promise<Payload> {
    const id = await putBytes(this.bucket, 'payload', proto.temporal.api.common.v1.Payload.encode(p).finish(), { createdAt: new Date() });
    return { metadata: { encoding: ENCODING }, data: new TextEncoder().encode(id.toString()) };
  }

  private async load(p: Payload): Promise<Payload> {
    const id = new ObjectId(Buffer.from(p.data ?? []).toString('utf8'));
    return proto.temporal.api.common.v1.Payload.decode(await readBytes(this.bucket, id)) as Payload;
  }
}

/** Deletes blobs stored before `olderThan`; returns how many. */
export function sweepBlobs(db: Db, olderThan: Date): Promise<number> {
  return deleteOlderThan(new GridFSBucket(db, { bucketName: BLOB_BUCKET }), olderThan);
}
