//! A big output leaves its worker once: the worker writes the answer's JSON to the blob store
//! (lib/blob-store.ts) and the call carries a small reference in its place, through the step's
//! result, the workflow's result and an asynchronous call's record. The API writes the stored
//! bytes as the answer's body as they are: nothing large is serialised into Temporal's payloads,
//! stored twice, parsed or serialised again.
import type { BlobStore } from './blob-store.js';

/**
 * Outputs whose JSON is at most this many bytes stay in the call's history: below it, the
 * payload's own path is cheaper than a blob's write and read (bench/claim-check.ts). Under the
 * claim check's threshold, so an output is stored once either way.
 */
export const INLINE_OUTPUT_MAX_BYTES = 32 * 1024;

/** What travels in place of a big output: where its JSON is, and how long it is. */
export interface OutputBlob {
  $outputBlob: { key: string; bytes: number };
}

export function isOutputBlob(output: unknown): output is OutputBlob {
  if (typeof output !== 'object' || output === null || !('$outputBlob' in output)) return false;
  const ref = (output as OutputBlob).$outputBlob;
  return typeof ref === 'object' && ref !== null && typeof ref.key === 'string' && typeof ref.bytes === 'number';
}

/** The output as the call should carry it: itself when small, else a reference to its JSON, stored. */
export async function keepOutput(store: BlobStore, output: unknown, inlineMaxBytes = INLINE_OUTPUT_MAX_BYTES): Promise<unknown> {
  const json = JSON.stringify(output ?? null);
  // A string's UTF-8 is at most 3 bytes per UTF-16 unit: a short one needs no encoding to decide.
  if (json.length * 3 <= inlineMaxBytes) return output;
  const bytes = Buffer.from(json, 'utf8');
  if (bytes.length <= inlineMaxBytes) return output;
  const key = await store.put(bytes);
  return { $outputBlob: { key, bytes: bytes.length } } satisfies OutputBlob;
}

/** The blob behind a reference is gone: swept after its 24 h, or the API reads another store than the worker wrote. */
export class OutputBlobMissing extends Error {
  constructor(readonly key: string) {
    super(`the output blob ${key} is not in the blob store`);
  }
}

/** A stored output's JSON, the bytes as its worker wrote them. */
export async function storedJson(store: BlobStore, output: OutputBlob): Promise<Buffer> {
  const { key, bytes } = output.$outputBlob;
  const stored = await store.get(key);
  // A store is written whole or not at all; a different length is not the blob this call wrote.
  if (!stored || stored.length !== bytes) throw new OutputBlobMissing(key);
  return stored;
}

/**
 * `envelope` serialised with `json` (already JSON text) as the value of `field`, without parsing
 * it: the envelope's own JSON is small, the output's may be megabytes.
 */
export function jsonWithField(envelope: Record<string, unknown>, field: string, json: Buffer): Buffer {
  const { [field]: _dropped, ...rest } = envelope;
  const head = JSON.stringify(rest);
  const prefix = head === '{}' ? '{' : `${head.slice(0, -1)},`;
  return Buffer.concat([Buffer.from(`${prefix}${JSON.stringify(field)}:`, 'utf8'), json, Buffer.from('}', 'utf8')]);
}
