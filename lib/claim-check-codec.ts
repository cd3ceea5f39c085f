//! Claim check: payloads over a threshold (screenshots, PDFs, large HTML) are stored in GridFS
//! and only a reference travels through Temporal, whose history holds at most 2 MB per blob.
//! The API and every worker use this codec, so each side can read what the other wrote.
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { GridFSBucket, ObjectId, type Db } from 'mongodb';

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

  constructor(db: Db, private readonly thresholdBytes = DEFAULT_THRESHOLD_BYTES) {
    this.bucket = new GridFSBucket(db, { bucketName: BLOB_BUCKET });
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((p) => ((p.data?.length ?? 0) > this.thresholdBytes ? this.store(p) : p)));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((p) => (isClaimCheck(p) ? this.load(p) : p)));
  }

  private async store(p: Payload): Promise<Payload> {
    const bytes = proto.temporal.api.common.v1.Payload.encode(p).finish();
    const upload = this.bucket.openUploadStream('payload', { metadata: { createdAt: new Date() } });
    await new Promise<void>((resolve, reject) => {
      upload.once('finish', () => resolve()).once('error', reject);
      upload.end(Buffer.from(bytes));
    });
    return { metadata: { encoding: ENCODING }, data: new TextEncoder().encode(upload.id.toString()) };
  }

  private async load(p: Payload): Promise<Payload> {
    const id = new ObjectId(Buffer.from(p.data ?? []).toString('utf8'));
    const chunks: Buffer[] = [];
    for await (const chunk of this.bucket.openDownloadStream(id)) chunks.push(chunk as Buffer);
    return proto.temporal.api.common.v1.Payload.decode(Buffer.concat(chunks)) as Payload;
  }
}

/** Deletes blobs stored before `olderThan`; returns how many. */
export async function sweepBlobs(db: Db, olderThan: Date): Promise<number> {
  const bucket = new GridFSBucket(db, { bucketName: BLOB_BUCKET });
  let removed = 0;
  for await (const file of bucket.find({ uploadDate: { $lt: olderThan } }, { projection: { _id: 1 } })) {
    await bucket.delete(file._id);
    removed++;
  }
  return removed;
}
