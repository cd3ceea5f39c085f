//! A call's file written to its destination, inside the call's step and before its commit (a call
//! is charged only once its file is in the bucket): the worker loads the destination, opens its
//! secret in memory, writes `{prefix}/{folder}/{name}.{ext}` and answers where it went. A refusal
//! is `destination_error` with S3's reason; the call is then refunded.
import type { Db } from 'mongodb';
import { ServiceError } from '../../contracts/errors.js';
import type { TargetGuard } from '../../lib/target-guard.js';
import type { CallDestination } from '../../contracts/call.js';
import { findTool } from '../tools/index.js';
import { createDestinationStore } from './store.js';
import { fileOf, objectKey, storedOutput } from './stored-file.js';

export interface DestinationDeliveryDeps {
  db: Db;
  /** SECRET_KEY: opens the destination's secret access key. */
  secretKey: Buffer;
  /** The worker's target guard: the endpoint is checked again at every write (DNS may have changed). */
  guard: TargetGuard;
}

/** What the step hands over: whose call, of which tool, and where its file goes. */
export interface DeliveryRequest {
  accountId: string;
  tool: string;
  destination: CallDestination;
}

export function createDestinationDelivery(deps: DestinationDeliveryDeps) {
  const store = createDestinationStore(deps.db, deps.secretKey);

  /** The output with `stored` in place of its file, once the file is in the bucket. */
  return async function deliver(call: DeliveryRequest, output: unknown): Promise<Record<string, unknown>> {
    const { id } = call.destination;
    const field = findTool(call.tool)?.fileField;
    if (!field) throw new Error(`${call.tool} makes no file to store`); // the API refuses such a call
    const doc = await store.get(call.accountId, id);
    if (!doc)
      throw new ServiceError('destination_error', `The destination ${id} was deleted before the output could be written.`, {
        reason: 'the destination was deleted',
      });
    const file = fileOf(output, field);
    const key = objectKey(doc.prefix, call.destination, file.extension);
    const { openBucket, BucketRefused } = await import('../../lib/s3-bucket.js');
    let bucket;
    try {
      bucket = openBucket(doc, store.credentialsOf(doc), deps.guard);
      await bucket.put(key, file.bytes, file.contentType);
    } catch (err) {
      // The guard's refusal of the endpoint (its name now resolves inside) is a refused write too.
      const reason = err instanceof BucketRefused ? err.reason : err instanceof ServiceError ? `${err.code}: ${err.message}` : undefined;
      if (reason === undefined) throw err;
      throw new ServiceError(
        'destination_error',
        `The output could not be written to destination ${id}: ${reason}`,
        { reason },
        { cause: err },
      );
    } finally {
      bucket?.close();
    }
    return storedOutput(output, field, { bucket: doc.bucket, key, size: file.bytes.length, contentType: file.contentType });
  };
}

export type DestinationDelivery = ReturnType<typeof createDestinationDelivery>;
