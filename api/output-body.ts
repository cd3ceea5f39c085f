//! A call's output as an answer's body: a small output as it is; a stored one (lib/output-blobs.ts)
//! as the bytes its worker wrote, never parsed here. A store out of reach is waited out for a while,
//! then a 503. A stored output that cannot be found is a fault of the deployment (its API and
//! workers name different stores, or the blob was swept): a 500 that says nothing internal, and a
//! log line an operator can act on.
import type { Context } from 'koa';
import type { BlobStore } from '../lib/blob-store.js';
import type { Logger } from '../lib/logger.js';
import { isOutputBlob, jsonWithField, storedJson, OutputBlobMissing, type OutputBlob } from '../lib/output-blobs.js';
import { ServiceError } from '../contracts/errors.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { unavailable } from './call-workflow.js';

/** How long an answer waits out its store's outage (a network blip, S3's 5xx) before answering 503. */
const STORE_WAIT_MS = 10_000;

export function createOutputBodies(deps: { blobs: BlobStore; log: Logger }) {
  async function stored(output: OutputBlob): Promise<Buffer> {
    const until = Date.now() + STORE_WAIT_MS;
    for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
      try {
        return await storedJson(deps.blobs, output);
      } catch (err) {
        if (err instanceof OutputBlobMissing) {
          deps.log.error(
            { key: err.key },
            "a charged call's output is missing from the blob store: do the API and the workers share BLOB_STORE_URL?",
          );
          throw new ServiceError('internal_error', 'The answer could not be read.', {}, { cause: err });
        }
        // The store is out of reach: the call is charged and its output kept, so a repeat with the
        // same Idempotency-Key gets it once the store is back.
        if (Date.now() + pause > until) throw unavailable(err);
        await sleep(pause);
      }
    }
  }

  /**
   * Sets `ctx.body` to the output, or to `within.envelope` with the output as its `field`. A small
   * output is left to Koa's JSON; a stored one is the stored bytes.
   */
  async function send(ctx: Context, output: unknown, within?: { envelope: Record<string, unknown>; field: string }): Promise<void> {
    if (!isOutputBlob(output)) {
      ctx.body = within ? { ...within.envelope, [within.field]: output } : output;
      return;
    }
    const json = await stored(output);
    ctx.type = 'application/json';
    ctx.body = within ? jsonWithField(within.envelope, within.field, json) : json;
  }

  /** The output's JSON text: a stored one's bytes as they are, a small one serialised. */
  async function json(output: unknown): Promise<Buffer> {
    return isOutputBlob(output) ? stored(output) : Buffer.from(JSON.stringify(output), 'utf8');
  }

  /** The output as a value: a stored one read back and parsed (a list of outputs, where each is one member). */
  async function value(output: unknown): Promise<unknown> {
    return isOutputBlob(output) ? JSON.parse((await stored(output)).toString('utf8')) : output;
  }

  return { send, json, value };
}

export type OutputBodies = ReturnType<typeof createOutputBodies>;
