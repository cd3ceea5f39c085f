//! Whole files in a GridFS bucket: the claim check's payloads, asynchronous calls' large outputs and
//! the database blob store all write bytes once, read them back whole, and drop them by age.
import type { GridFSBucket, ObjectId } from 'mongodb';

/** Stores `bytes` as one file named `filename`; its id once every chunk and the file document are written. */
export async function putBytes(
  bucket: GridFSBucket,
  filename: string,
  bytes: Uint8Array,
  metadata?: Record<string, unknown>,
): Promise<ObjectId> {
  const upload = bucket.openUploadStream(filename, metadata ? { metadata } : undefined);
  await new Promise<void>((resolve, reject) => {
    upload.once('finish', () => resolve()).once('error', reject);
    upload.end(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  });
  return upload.id;
}

/** The file's bytes. */
export async function readBytes(bucket: GridFSBucket, id: ObjectId): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of bucket.openDownloadStream(id)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Deletes the files uploaded before `olderThan`; returns how many it found. */
export async function deleteOlderThan(bucket: GridFSBucket, olderThan: Date): Promise<number> {
  let removed = 0;
  for await (const file of bucket.find({ uploadDate: { $lt: olderThan } }, { projection: { _id: 1 } })) {
    await bucket.delete(file._id).catch(() => undefined); // deleted by a sweep alongside
    removed++;
  }
  return removed;
}
