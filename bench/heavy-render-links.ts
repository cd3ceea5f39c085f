//! The render link half of `npm run bench:heavy`: the same 1440x900 capture of a fixture page by
//! `POST` and through a render link that renders afresh (`maxAge=0`, a miss: the call, then the
//! image stored), and the link answered from the render cache (a hit: no workflow, no ledger),
//! taking turns; then the hit against a bare Koa route answering the same bytes, many calls a turn.
//! The bars: a hit's p50 <= 0.1x the miss and <= 3x the bare route; a miss <= 1.1x the POST.
//! Beside the hit, the one write it waits for: its token from the account's shared rate bucket
//! (api/rate-limit.ts, a database write per request, so that N replicas give an account its rate
//! once), taken alone on the stack's database, to read beside the hit and the bare route.
//! Figures, never assertions. Library of bench/heavy.ts; alone:
//! `node scripts/node.mjs --import tsx bench/heavy-render-links.ts [--calls N] [--hits-only]`
//! (`--hits-only`: the hit and bare-route rows alone, a capture only to fill the cache).
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { MongoClient } from 'mongodb';
import { createRateLimiter } from '../api/rate-limit.js';
import { buildRenderLink } from '../lib/render-link-signature.js';
import { startBrowserPages } from '../test/fixtures/browser-pages.js';
import { measureInterleaved, printTable, type Figures } from './measure.js';
import { withBenchStack } from './stack.js';

export interface RenderLinkBench {
  /** Empty with `hitsOnly`. */
  captures: Figures[];
  hits: Figures[];
}

const ROWS = {
  post: 'website-screenshot by POST',
  miss: 'the same capture by a render link, miss (maxAge=0: rendered and stored)',
  hit: 'the same render link, cache hit',
  hitFast: 'render link, cache hit',
  postHit: 'POST with Cache-Control: max-age, cache hit',
  bare: 'bare Koa route answering the same bytes',
  take: "a take from the shared rate bucket alone (what a hit waits for), on the stack's database",
};

async function fetchBytes(url: string, init?: RequestInit): Promise<Buffer> {
  const res = await fetch(url, init);
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`${res.status} ${bytes.toString('utf8').slice(0, 200)}`);
  return bytes;
}

/** A Koa app with one route answering `bytes` as a PNG: the floor of an HTTP answer of that size. */
async function bareRoute(bytes: Buffer): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.type = 'image/png';
    ctx.body = bytes;
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/image.png`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A take from a rate bucket of its own, as the API takes one for each request (api/rate-limit.ts),
 * on the stack's database; undefined when the stack's database is not known.
 */
async function rateTake(mongodbUrl: string | undefined): Promise<{ op: () => Promise<unknown>; close(): Promise<void> } | undefined> {
  if (!mongodbUrl) return undefined;
  const client = await MongoClient.connect(mongodbUrl);
  // The API's own rate, so the bucket never runs dry: a refusal is the same one write.
  const limiter = createRateLimiter({ perSecond: 10_000, db: client.db() });
  const key = `bench:${Date.now()}`;
  return { op: () => limiter.take(key), close: () => client.close() };
}

export async function benchRenderLinks(
  options: { calls?: number; hitsOnly?: boolean; mongodbUrl?: string } = {},
): Promise<RenderLinkBench | undefined> {
  const apiUrl = process.env.API_URL;
  if (!apiUrl || !process.env.ADMIN_TOKEN) {
    console.log('(no API_URL and ADMIN_TOKEN: the render link rows are left out)');
    return undefined;
  }
  const calls = options.calls ?? 20;
  const { newAccount, request } = await import('../test/helpers/api.js');
  const account = await newAccount(25 * 3 * (calls + 10), 'bench render links');
  const secret = (await request('POST', '/api/v1/account/link-secrets', { token: account.ownerToken })).body as {
    id: string;
    secret: string;
  };
  const pages = await startBrowserPages();
  try {
    const input = { url: pages.url('/browser/colourful'), width: 1440, height: 900 };
    const link = (maxAge?: number) =>
      buildRenderLink({ baseUrl: apiUrl, secretId: secret.id, secret: secret.secret, tool: 'website-screenshot', input, maxAge });
    const post = (headers: Record<string, string> = {}) =>
      fetchBytes(`${apiUrl}/api/v1/tools/website-screenshot`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(input),
      });
    const image = await fetchBytes(link()); // primes the cache for the hit rows
    await post({ 'Cache-Control': 'max-age=86400' });
    const bare = await bareRoute(image);
    const take = await rateTake(options.mongodbUrl);
    try {
      const captures = options.hitsOnly
        ? []
        : await measureInterleaved(
            [
              { label: ROWS.post, op: () => post() },
              { label: ROWS.miss, op: () => fetchBytes(link(0)) },
              { label: ROWS.hit, op: () => fetchBytes(link()) },
            ],
            { turns: calls, warmupTurns: 2, pauseMs: 100 },
          );
      // Five calls a turn stay under the account's rate limit (20 a second).
      const hits = await measureInterleaved(
        [
          { label: ROWS.hitFast, op: () => fetchBytes(link()) },
          { label: ROWS.postHit, op: () => post({ 'Cache-Control': 'max-age=86400' }) },
          { label: ROWS.bare, op: () => fetchBytes(bare.url) },
          ...(take ? [{ label: ROWS.take, op: take.op }] : []),
        ],
        { turns: calls * 4, callsPerLane: 5, warmupTurns: 3, pauseMs: 100 },
      );
      return { captures, hits };
    } finally {
      await Promise.all([bare.close(), take?.close()]);
    }
  } finally {
    await pages.close();
  }
}

export function printRenderLinks(bench: RenderLinkBench | undefined): void {
  if (!bench) return;
  if (bench.captures.length)
    printTable('Render links and the render cache: website-screenshot 1440x900 PNG of a local page, one at a time', bench.captures);
  printTable('Render cache hits against a bare Koa route answering the same bytes', bench.hits);
  const p50 = (rows: Figures[], label: string) => rows.find((f) => f.label === label)!.p50Ms;
  const ratio = (what: string, a: number, b: number, bar: number) =>
    console.log(`${what}: ${(a / b).toFixed(3)}x (p50 ${a.toFixed(2)} vs ${b.toFixed(2)} ms; bar ${bar}x)`);
  if (bench.captures.length)
    ratio("render link hit / the same link's miss", p50(bench.captures, ROWS.hit), p50(bench.captures, ROWS.miss), 0.1);
  ratio('render link hit / bare Koa route', p50(bench.hits, ROWS.hitFast), p50(bench.hits, ROWS.bare), 3);
  const take = bench.hits.find((f) => f.label === ROWS.take);
  if (take) {
    const bare = p50(bench.hits, ROWS.bare);
    console.log(
      `  a hit waits for one take from the shared rate bucket: alone p50 ${take.p50Ms.toFixed(2)} ms, ${(take.p50Ms / bare).toFixed(3)}x the bare route`,
    );
  }
  if (bench.captures.length)
    ratio('render link miss / the same capture by POST', p50(bench.captures, ROWS.miss), p50(bench.captures, ROWS.post), 1.1);
}

async function main() {
  const callsArg = process.argv.indexOf('--calls');
  const calls = callsArg > 0 ? Number(process.argv[callsArg + 1]) : 20;
  const hitsOnly = process.argv.includes('--hits-only');
  await withBenchStack(async (stack) => printRenderLinks(await benchRenderLinks({ calls, hitsOnly, mongodbUrl: stack.mongodbUrl })));
  process.exit(0);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
