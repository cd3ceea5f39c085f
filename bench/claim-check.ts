//! Where a big output's detour goes: each step a capture's PNG takes from the worker's
//! result to the API's HTTP body, timed on its own against a SecantusDB of its own: the result
//! serialised (base64 inside JSON, as the default payload converter writes it), stored by the
//! claim check (GridFS), read back by the API, parsed, and serialised again for the answer. Then,
//! for the inline limit: an output carried in the payloads against one stored once in a directory.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DirectoryBlobStore } from '../lib/blob-store.js';
import { INLINE_OUTPUT_MAX_BYTES, keepOutput, storedJson, type OutputBlob } from '../lib/output-blobs.js';
import { defaultPayloadConverter } from '@temporalio/common';
import { connectMongo } from '../lib/mongo.js';
import { ClaimCheckCodec } from '../lib/claim-check-codec.js';
import { percentile } from './measure.js';
import { withBenchDatabase } from './stack.js';

const ROUNDS = Number(process.env.BENCH_CALLS ?? 30);

async function timed<T>(times: number[], step: () => T | Promise<T>): Promise<T> {
  const t = performance.now();
  const value = await step();
  times.push(performance.now() - t);
  return value;
}

const p50 = (list: number[]) =>
  +percentile(
    [...list].sort((a, b) => a - b),
    50,
  ).toFixed(2);

/** Per output size: the inline path's cost against the blob path's, in this process (Temporal's own share of a bigger payload not counted). */
async function inlineOrStored(): Promise<Array<Record<string, string | number>>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-blobs-'));
  const store = new DirectoryBlobStore(dir);
  const table: Array<Record<string, string | number>> = [];
  try {
    for (const size of [4, 16, 32, 64, 128, 256].map((k) => k * 1024)) {
      const inline: number[] = [];
      const stored: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const output = { fileBase64: randomBytes((size * 3) / 4).toString('base64'), mimeType: 'image/png', width: 1440, height: 900 };
        const carry = (value: unknown) => {
          for (let hop = 0; hop < 2; hop++)
            value = defaultPayloadConverter.fromPayload(
              defaultPayloadConverter.toPayload({ ok: true, output: value, charged: 25, balance: 1000 })!,
            );
          return (value as { output: unknown }).output;
        };
        await timed(inline, () => Buffer.from(JSON.stringify(carry(output))));
        await timed(stored, async () => storedJson(store, carry(await keepOutput(store, output, 0)) as OutputBlob));
      }
      table.push({ 'output KiB': size / 1024, 'inline ms': p50(inline), 'stored once ms': p50(stored) });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return table;
}

const rows: Array<Record<string, string | number>> = [];
await withBenchDatabase('claim-check', async (database) => {
  const mongo = await connectMongo(database.url);
  const codec = new ClaimCheckCodec(mongo.db);
  try {
    // Random bytes stand in for a PNG: both are incompressible.
    for (const size of [256 * 1024, 1024 * 1024, 4 * 1024 * 1024]) {
      const steps = {
        serialise: [] as number[],
        store: [] as number[],
        load: [] as number[],
        parse: [] as number[],
        answer: [] as number[],
      };
      for (let i = 0; i < ROUNDS; i++) {
        const result = {
          ok: true,
          output: { imageBase64: randomBytes(size).toString('base64'), mimeType: 'image/png', width: 1440, height: 900 },
          charged: 25,
          balance: 1000,
        };
        const payload = await timed(steps.serialise, () => defaultPayloadConverter.toPayload(result));
        const [stored] = await timed(steps.store, () => codec.encode([payload]));
        const [loaded] = await timed(steps.load, () => codec.decode([stored!]));
        const back = await timed(steps.parse, () => defaultPayloadConverter.fromPayload<typeof result>(loaded!));
        await timed(steps.answer, () => Buffer.from(JSON.stringify(back.output)));
      }
      rows.push({ 'PNG KiB': size / 1024, ...Object.fromEntries(Object.entries(steps).map(([k, v]) => [`${k} ms`, p50(v)])) });
    }
  } finally {
    await mongo.close();
  }
});
console.log(
  `\nA big output's way from the worker's result to the API's answer through the claim check, step by step (p50 of ${ROUNDS} rounds)`,
);
console.table(rows);
console.log(
  `\nWhere the inline limit (INLINE_OUTPUT_MAX_BYTES, ${INLINE_OUTPUT_MAX_BYTES / 1024} KiB) stands: an output kept in the call's payloads (serialised and parsed twice, as the step's and the workflow's result, then the answer's JSON) against one written once to a directory store and answered as stored (p50 of ${ROUNDS} rounds)`,
);
console.table(await inlineOrStored());
process.exit(0);
