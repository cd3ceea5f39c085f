//! `npm run bench:core`: what the platform costs around a tool. hash-text through the whole
//! platform (HTTP -> auth -> Temporal workflow -> cpu worker -> ledger) vs the same handler
//! behind a bare Koa route, at concurrency 1 and 32; and hash-wasm bcrypt vs native bcrypt.
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import bcrypt from 'bcrypt';
import { bcrypt as wasmBcrypt } from 'hash-wasm';
import { randomBytes } from 'node:crypto';
import { createHashText } from '../activities/cpu/hash-text.js';
import { createHashingPool } from '../activities/cpu/hashing-pool.js';
import { standaloneContext } from '../lib/tool-handler.js';
import { measure, postJson, printTable, type Figures } from './measure.js';
import { withBenchStack } from './stack.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 300);

/** The same hash-text handler behind a bare Koa route: JSON in, JSON out, nothing else. */
async function bareKoa(threads: number) {
  const hashing = createHashingPool({ threads });
  const hashText = createHashText({ hashing });
  const app = new Koa();
  app.use(async (ctx) => {
    const chunks: Buffer[] = [];
    for await (const c of ctx.req) chunks.push(c as Buffer);
    const input = { algorithm: 'sha256', ...JSON.parse(Buffer.concat(chunks).toString()) };
    ctx.body = await hashText(input, standaloneContext());
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, close: async () => { server.close(); await hashing.close(); } };
}

async function hashTextFigures(): Promise<Figures[]> {
  const rows: Figures[] = [];
  await withBenchStack(async ({ apiUrl, newApiKey }) => {
    const key = await newApiKey(CALLS * 4 + 100);
    const bare = await bareKoa(2);
    try {
      for (const concurrency of [1, 32]) {
        rows.push(await measure('hash-text via platform', (i) => postJson(`${apiUrl}/api/v1/tools/hash-text`, { text: `bench ${i}` }, key), { calls: CALLS, concurrency }));
        rows.push(await measure('hash-text on bare Koa', (i) => postJson(bare.url, { text: `bench ${i}` }), { calls: CALLS, concurrency }));
      }
    } finally {
      await bare.close();
    }
  });
  return rows;
}

async function bcryptFigures(): Promise<Figures[]> {
  const pool = createHashingPool({ threads: 1 });
  const salt = randomBytes(16);
  const calls = 20;
  try {
    return [
      await measure('bcrypt cost 11, hash-wasm (calling thread)', () => wasmBcrypt({ password: 'correct horse', salt, costFactor: 11, outputType: 'encoded' }), { calls, concurrency: 1, warmup: 2 }),
      await measure('bcrypt cost 11, hash-wasm (thread pool)', () => pool.bcryptHash('correct horse', 11), { calls, concurrency: 1, warmup: 2 }),
      await measure('bcrypt cost 11, native bcrypt', () => bcrypt.hash('correct horse', 11), { calls, concurrency: 1, warmup: 2 }),
    ];
  } finally {
    await pool.close();
  }
}

printTable('hash-text: platform vs bare Koa route', await hashTextFigures());
printTable('bcrypt cost 11: hash-wasm vs native', await bcryptFigures());
process.exit(0);
