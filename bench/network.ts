//! `npm run bench:network`: web-scrape and broken-links through the platform (HTTP API ->
//! Temporal -> network worker) side by side with the same handler functions called directly,
//! against local fixture pages on 127.0.0.2. Prints p50/p95 latency and calls/s per concurrency.
//!
//! Options: `--calls N` (per row, default 60), `--concurrency 1,8` (levels, default 1 and 8),
//! `--links N` (links on the broken-links page, default 10). With API_URL and ADMIN_TOKEN set, that
//! stack is used (its TARGET_ALLOWLIST must let 127.0.0.2 through and its rate limit must allow the
//! load); otherwise a throwaway stack (Temporal, SecantusDB, API, workers) starts on free ports
//! under test-output/bench-<time>/ and stops at the end. Numbers, never assertions.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createBrokenLinks } from '../activities/network/broken-links.js';
import { createWebScrape } from '../activities/network/web-scrape.js';
import { createNetworkAccess } from '../lib/network-access.js';
import { standaloneContext, type ToolHandler } from '../lib/tool-handler.js';
import { htmlDocument, send, startPageServer, type PageServer } from '../test/fixtures/http-pages.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    calls: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '1,8' },
    links: { type: 'string', default: '10' },
  },
});
const CALLS = Number(args.calls);
const LEVELS = args.concurrency.split(',').map(Number);
const LINKS = Number(args.links);
const WARMUP = 5;

interface Row {
  tool: string;
  path: 'direct' | 'platform';
  concurrency: number;
  calls: number;
  errors: number;
  p50: number;
  p95: number;
  perSecond: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** `calls` runs of `call`, `concurrency` at a time: latency percentiles and throughput. */
async function measure(call: () => Promise<void>, calls: number, concurrency: number) {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        next += 1;
        const t0 = performance.now();
        try {
          await call();
          latencies.push(performance.now() - t0);
        } catch (err) {
          errors += 1;
          if (errors === 1) console.error(`  first error: ${(err as Error).message}`);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { errors, p50: percentile(latencies, 50), p95: percentile(latencies, 95), perSecond: latencies.length / seconds };
}

// ---------------------------------------------------------------------------------------------
// The platform: an existing stack, or one started here

interface Platform {
  apiUrl: string;
  adminToken: string;
  stop(): Promise<void>;
}

async function startPlatform(): Promise<Platform> {
  if (process.env.API_URL && process.env.ADMIN_TOKEN) {
    console.log(`platform: the stack at ${process.env.API_URL}`);
    return { apiUrl: process.env.API_URL, adminToken: process.env.ADMIN_TOKEN, stop: async () => {} };
  }
  // bootstrap.mjs is plain JavaScript without types: imported by URL, typed here.
  const { bootstrap } = (await import(new URL('../scripts/bootstrap.mjs', import.meta.url).href)) as {
    bootstrap: (o: { root: string; log: (line: string) => void }) => Promise<{ temporal: string; secantusd: string }>;
  };
  const stack = await import('../scripts/stack/index.js');
  const tools = await bootstrap({ root, log: (line) => console.log(`bootstrap: ${line}`) });
  const runDir = path.join(root, 'test-output', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const supervisor = new stack.Supervisor({ logDir: path.join(runDir, 'logs') });
  supervisor.stopOnSignals();
  const started = performance.now();
  const [temporal, database] = await Promise.all([
    stack.startTemporal(supervisor, { binary: tools.temporal, port: await stack.freePort() }),
    stack.startDatabase(supervisor, { binary: tools.secantusd, port: await stack.freePort(), dir: path.join(runDir, 'db') }),
  ]);
  const adminToken = randomBytes(24).toString('base64url');
  const env = {
    ...process.env,
    MONGODB_URL: database.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    SECRET_KEY: randomBytes(32).toString('hex'),
    ADMIN_TOKEN: adminToken,
    TARGET_ALLOWLIST: '127.0.0.2/32',
    RATE_LIMIT_PER_SECOND: '10000',
    LOG_LEVEL: 'warn',
  };
  const apps = await stack.startApps(supervisor, { root, env, apiPort: await stack.freePort() });
  console.log(`platform: own stack ready in ${((performance.now() - started) / 1000).toFixed(1)} s (logs in ${path.relative(process.cwd(), runDir)}/logs)`);
  return { apiUrl: apps.apiUrl, adminToken, stop: () => supervisor.stopAll() };
}

async function newApiKey(platform: Platform): Promise<string> {
  const res = await fetch(`${platform.apiUrl}/api/v1/admin/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${platform.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', credits: 1_000_000 }),
  });
  if (res.status !== 201) throw new Error(`could not open a bench account: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { apiKey: { key: string } }).apiKey.key;
}

function platformCall(platform: Platform, apiKey: string, tool: string, input: unknown) {
  return async () => {
    const res = await fetch(`${platform.apiUrl}/api/v1/tools/${tool}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${tool} answered ${res.status}: ${text.slice(0, 200)}`);
  };
}

function directCall(handler: ToolHandler, input: unknown) {
  return async () => {
    await handler(structuredClone(input), standaloneContext('bench'));
  };
}

// ---------------------------------------------------------------------------------------------

function table(rows: Row[]): string {
  const head = ['tool', 'path', 'concurrency', 'calls', 'errors', 'p50 ms', 'p95 ms', 'calls/s'];
  const body = rows.map((r) => [r.tool, r.path, String(r.concurrency), String(r.calls), String(r.errors), r.p50.toFixed(1), r.p95.toFixed(1), r.perSecond.toFixed(1)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [line(head), `|${widths.map((w, i) => (i < 2 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...body.map(line)].join('\n');
}

const pages: PageServer = await startPageServer({
  routes: {
    '/links.html': (_req, res) =>
      send(res, 200, 'text/html; charset=utf-8', htmlDocument('<title>Links</title>', Array.from({ length: LINKS }, (_, i) => `<a href="/about?n=${i}">link ${i}</a>`).join('\n'))),
  },
});
let platform: Platform | undefined;
try {
  platform = await startPlatform();
  const apiKey = await newApiKey(platform);
  // The handlers exactly as the network worker builds them, with their own guarded client.
  const net = createNetworkAccess({ dnsServers: [], targetAllowlist: ['127.0.0.2/32'] });
  const scenarios = [
    { tool: 'web-scrape', handler: createWebScrape({ http: net.http }), input: { url: pages.url('/article.html'), includeText: true } },
    { tool: 'broken-links', handler: createBrokenLinks({ http: net.http }), input: { url: pages.url('/links.html'), maxLinks: 30 } },
  ];

  console.log(`\n${CALLS} calls per row after ${WARMUP} warm-up calls; fixture pages at ${pages.origin}; broken-links page with ${LINKS} links\n`);
  const rows: Row[] = [];
  for (const { tool, handler, input } of scenarios) {
    const paths = { direct: directCall(handler, input), platform: platformCall(platform, apiKey, tool, input) } as const;
    for (const [name, call] of Object.entries(paths) as Array<[Row['path'], () => Promise<void>]>) {
      await measure(call, WARMUP, 1);
      for (const concurrency of LEVELS) {
        const m = await measure(call, CALLS, concurrency);
        rows.push({ tool, path: name, concurrency, calls: CALLS, ...m });
        console.log(`  ${tool} ${name} x${concurrency}: p50 ${m.p50.toFixed(1)} ms, ${m.perSecond.toFixed(1)} calls/s`);
      }
    }
  }
  console.log(`\n${table(rows)}\n`);
  console.log('direct = the handler called in this process; platform = HTTP API -> Temporal workflow (reserve, activity on the network pool, commit) -> answer.');
} finally {
  await pages.close();
  await platform?.stop();
}
process.exit(0);
