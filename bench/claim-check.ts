//! Where a big output's detour goes (issue 26): each step a capture's PNG takes from the worker's
//! result to the API's HTTP body, timed on its own against a SecantusDB of its own: the result
//! serialised (base64 inside JSON, as the default payload converter writes it), stored by the
//! claim check (GridFS), read back by the API, parsed, and serialised again for the answer.
import { randomBytes } from 'node:crypto';
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

const rows: Array<Record<string, string | number>> = [];
await withBenchDatabase('claim-check', async (database) => {
  const mongo = await connectMongo(database.url);
  const codec = new ClaimCheckCodec(mongo.db);
  try {
    // Random bytes stand in for a PNG: both are incompressible.
    for (const size of [256 * 1024, 1024 * 1024, 4 * 1024 * 1024]) {
      const steps = { serialise: [] as number[], store: [] as number[], load: [] as number[], parse: [] as number[], answer: [] as number[] };
      for (let i = 0; i < ROUNDS; i++) {
        const result = { ok: true, output: { imageBase64: randomBytes(size).toString('base64'), mimeType: 'image/png', width: 1440, height: 900 }, charged: 25, balance: 1000 };
        const payload = await timed(steps.serialise, () => defaultPayloadConverter.toPayload(result));
        const [stored] = await timed(steps.store, () => codec.encode([payload]));
        const [loaded] = await timed(steps.load, () => codec.decode([stored!]));
        const back = await timed(steps.parse, () => defaultPayloadConverter.fromPayload<typeof result>(loaded!));
        await timed(steps.answer, () => Buffer.from(JSON.stringify(back.output)));
      }
      const p50 = (list: number[]) => +percentile([...list].sort((a, b) => a - b), 50).toFixed(1);
      rows.push({ 'PNG KiB': size / 1024, ...Object.fromEntries(Object.entries(steps).map(([k, v]) => [`${k} ms`, p50(v)])) });
    }
  } finally {
    await mongo.close();
  }
});
console.log(`\nA big output's way from the worker's result to the API's answer, step by step (p50 of ${ROUNDS} rounds)`);
console.table(rows);
process.exit(0);
