//! `npm run bench:core`: what the platform costs around a tool. hash-text through the whole
//! platform (HTTP -> auth -> Temporal workflow -> cpu worker -> ledger) vs the same handler
//! behind a bare Koa route, at concurrency 1 and 32; for the platform rows, where one call's time
//! goes hop by hop (its workflow history around the caller's clock) and the CPU each process of
//! the stack spends per call; and hash-wasm bcrypt vs native bcrypt. BENCH_STACKS=dev,cluster
//! measures the platform rows on the dev-server stack and on the production-shaped cluster
//! (Temporal server on PostgreSQL, two API replicas behind HAProxy, one process per pool) in the
//! same run; default `dev`. BENCH_TRACING=off,on measures the dev stack's platform rows untraced and
//! traced (the service's default sampling, exported to a Jaeger of the bench's own) in one run, and
//! prints their ratios; default `off`.
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import bcrypt from 'bcrypt';
import { bcrypt as wasmBcrypt } from 'hash-wasm';
import { randomBytes } from 'node:crypto';
import { createHashText } from '../activities/tools/hash-text.js';
import { createHashingPool } from '../activities/cpu/hashing-pool.js';
import { standaloneContext } from '../domain/tools/index.js';
import { callAnatomy, timedCall, type TimedCall } from './call-anatomy.js';
import { measure, postJson, printTable, type Figures } from './measure.js';
import { cpuPerCall, cpuSnapshot } from './process-cpu.js';
import { withBenchStack, type BenchStack, type BenchStackOptions } from './stack.js';
import { withClusterBenchStack } from './cluster-stack.js';
import { temporalFloor, type FloorFigures, type FloorKind } from './temporal-floor.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 300);
/**
 * Uncounted calls before each platform and floor row. A stack's first few hundred calls cost its
 * processes more CPU (the JIT, first use of each path); a service that has been up serves warm.
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 100);

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
  return {
    url,
    close: async () => {
      server.close();
      await hashing.close();
    },
  };
}

/** Calls whose histories the per-hop breakdown reads (the last ones of the c=1 run). */
const ANATOMY_CALLS = Math.min(CALLS, 100);

/** A tool call through the API, its whole answer read, that must answer 200, timed on the caller's clock. */
function timedPost(url: string, body: unknown, key: string): Promise<TimedCall> {
  return timedCall(url, async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: await res.text() };
  });
}

const STACKS = {
  dev: { label: 'dev server', run: withBenchStack },
  'dev-traced': {
    label: 'dev server, traced',
    run: (fn: (stack: BenchStack) => Promise<void>) => withBenchStack(fn, { tracing: true } satisfies BenchStackOptions),
  },
  cluster: { label: 'cluster', run: withClusterBenchStack },
} as const;
type StackName = keyof typeof STACKS;
const tracingModes = (process.env.BENCH_TRACING ?? 'off').split(',').map((s) => s.trim());
for (const mode of tracingModes) if (mode !== 'off' && mode !== 'on') throw new Error(`BENCH_TRACING: unknown mode "${mode}" (off, on)`);
const stackNames = (process.env.BENCH_STACKS ?? 'dev')
  .split(',')
  .map((s) => s.trim())
  // Traced is a mode of the dev stack: `on` adds its traced twin after it.
  .flatMap((s) => (s === 'dev' ? tracingModes.map((m) => (m === 'on' ? 'dev-traced' : 'dev')) : [s])) as StackName[];
for (const name of stackNames) if (!STACKS[name]) throw new Error(`BENCH_STACKS: unknown stack "${name}" (dev, cluster)`);

interface PlatformFigures {
  stack: string;
  rows: Figures[];
  anatomy?: Awaited<ReturnType<typeof callAnatomy>>;
  cpu: Array<{ concurrency: number; perCall: ReturnType<typeof cpuPerCall> }>;
  /** An empty workflow on the same Temporal: what no change to our code can go below. */
  floor?: FloorFigures;
}

async function hashTextFigures(name: StackName): Promise<PlatformFigures> {
  const { label, run } = STACKS[name];
  const figures: PlatformFigures = { stack: label, rows: [], cpu: [] };
  await run(async (stack: BenchStack) => {
    const key = await stack.newApiKey(CALLS * 4 + 100);
    const bare = await bareKoa(2);
    const url = `${stack.apiUrl}/api/v1/tools/hash-text`;
    try {
      for (const concurrency of [1, 32]) {
        const timed: TimedCall[] = [];
        let before = cpuSnapshot(stack.processes);
        const row = await measure(
          `hash-text via platform (${label})`,
          async (i) => {
            if (i === 0) before = cpuSnapshot(stack.processes); // after the warm-up calls
            const call = await timedPost(url, { text: `bench ${i}` }, key);
            if (i >= 0) timed.push(call);
          },
          { calls: CALLS, concurrency, warmup: WARMUP },
        );
        if (stack.processes.length > 0)
          figures.cpu.push({ concurrency, perCall: cpuPerCall(before, cpuSnapshot(stack.processes), timed.length) });
        figures.rows.push(row);
        if (concurrency === 1 && stack.temporal) figures.anatomy = await callAnatomy(stack.temporal, timed.slice(-ANATOMY_CALLS));
        figures.rows.push(
          await measure('hash-text on bare Koa', (i) => postJson(bare.url, { text: `bench ${i}` }), { calls: CALLS, concurrency }),
        );
      }
      // The floor is Temporal's, the same traced or not: measured on the untraced stacks only.
      if (stack.temporal && name !== 'dev-traced')
        figures.floor = await temporalFloor(stack.temporal, stack.processes, { calls: CALLS, warmup: WARMUP, concurrencies: [1, 32] });
    } finally {
      await bare.close();
    }
  });
  return figures;
}

async function bcryptFigures(): Promise<Figures[]> {
  const pool = createHashingPool({ threads: 1 });
  const salt = randomBytes(16);
  const calls = 20;
  try {
    return [
      await measure(
        'bcrypt cost 11, hash-wasm (calling thread)',
        () => wasmBcrypt({ password: 'correct horse', salt, costFactor: 11, outputType: 'encoded' }),
        { calls, concurrency: 1, warmup: 2 },
      ),
      await measure('bcrypt cost 11, hash-wasm (thread pool)', () => pool.bcryptHash('correct horse', 11), {
        calls,
        concurrency: 1,
        warmup: 2,
      }),
      await measure('bcrypt cost 11, native bcrypt', () => bcrypt.hash('correct horse', 11), { calls, concurrency: 1, warmup: 2 }),
    ];
  } finally {
    await pool.close();
  }
}

/** CPU ms per call by process, as a table under its title. */
function printCpu(title: string, perCall: ReturnType<typeof cpuPerCall>) {
  console.log(`\n${title}`);
  console.table(perCall.map((r) => ({ process: r.process, 'CPU ms per call': +r.msPerCall.toFixed(2) })));
}

/** The three figures issue targets are set in: the platform against the empty workflow, same run, same stack. */
function floorRatios(platform: PlatformFigures): string[] {
  const { floor } = platform;
  if (!floor) return [];
  const all = (perCall?: ReturnType<typeof cpuPerCall>) => perCall?.find((p) => p.process === 'all')?.msPerCall;
  /** The row and the CPU per call (all processes) of the platform, or of one of the floor's kinds, at `concurrency`. */
  const figure = (concurrency: number, of: 'platform' | FloorKind) =>
    of === 'platform'
      ? {
          row: platform.rows.find((r) => r.concurrency === concurrency && r.label.startsWith('hash-text via platform')),
          cpu: all(platform.cpu.find((c) => c.concurrency === concurrency)?.perCall),
        }
      : {
          row: floor.rows.find((r) => r.concurrency === concurrency && r.kind === of),
          cpu: all(floor.cpu.find((c) => c.concurrency === concurrency && c.kind === of)?.perCall),
        };
  const ratio = (a?: number, b?: number) => (a && b ? `${(a / b).toFixed(2)}x` : 'n/a');
  const [p1, f1, s1, p32, f32] = [
    figure(1, 'platform').row,
    figure(1, 'floor').row,
    figure(1, 'shape').row,
    figure(32, 'platform').row,
    figure(32, 'floor').row,
  ];
  const cpuAll = (concurrency: number, of: 'platform' | FloorKind) => figure(concurrency, of).cpu;
  return [
    '',
    `platform / floor (${platform.stack}): c=1 p50 latency ${ratio(p1?.p50Ms, f1?.p50Ms)} (${p1?.p50Ms.toFixed(1)} vs ${f1?.p50Ms.toFixed(1)} ms; target <= 1.4x)`,
    `platform / floor (${platform.stack}): c=32 calls/s ${ratio(p32?.callsPerSecond, f32?.callsPerSecond)} (${p32?.callsPerSecond.toFixed(1)} vs ${f32?.callsPerSecond.toFixed(1)}; target >= 0.7x)`,
    ...[1, 32].map(
      (c) =>
        `platform / floor (${platform.stack}): c=${c} CPU per call, all processes ${ratio(cpuAll(c, 'platform'), cpuAll(c, 'floor'))} (${cpuAll(c, 'platform')?.toFixed(1)} vs ${cpuAll(c, 'floor')?.toFixed(1)} ms; target <= 1.5x)`,
    ),
    // What the call's shape alone costs: the floor a call with a ledger and a tool starts from.
    `call's workflow, empty step / floor (${platform.stack}): c=1 p50 latency ${ratio(s1?.p50Ms, f1?.p50Ms)} (${s1?.p50Ms.toFixed(1)} vs ${f1?.p50Ms.toFixed(1)} ms); ` +
      `c=1 CPU per call ${ratio(cpuAll(1, 'shape'), cpuAll(1, 'floor'))}; c=32 CPU per call ${ratio(cpuAll(32, 'shape'), cpuAll(32, 'floor'))}`,
  ];
}

/** Traced / untraced on the dev stack, same run: the bound is 1.1x for CPU per call and p50. */
function tracingRatios(all: PlatformFigures[]): string[] {
  const off = all.find((p) => p.stack === STACKS.dev.label);
  const on = all.find((p) => p.stack === STACKS['dev-traced'].label);
  if (!off || !on) return [];
  const cpu = (p: PlatformFigures, c: number) =>
    p.cpu.find((x) => x.concurrency === c)?.perCall.find((r) => r.process === 'all')?.msPerCall;
  const row = (p: PlatformFigures, c: number) => p.rows.find((r) => r.concurrency === c && r.label.startsWith('hash-text via platform'));
  const ratio = (a?: number, b?: number) => (a && b ? `${(a / b).toFixed(2)}x` : 'n/a');
  return [
    '',
    ...[1, 32].map(
      (c) =>
        `traced / untraced (default sampling): c=${c} CPU per call, all processes ${ratio(cpu(on, c), cpu(off, c))} (${cpu(on, c)?.toFixed(2)} vs ${cpu(off, c)?.toFixed(2)} ms; target <= 1.1x)`,
    ),
    ...[1, 32].map(
      (c) =>
        `traced / untraced (default sampling): c=${c} p50 latency ${ratio(row(on, c)?.p50Ms, row(off, c)?.p50Ms)} (${row(on, c)?.p50Ms.toFixed(1)} vs ${row(off, c)?.p50Ms.toFixed(1)} ms; target <= 1.1x)`,
    ),
  ];
}

const platforms: PlatformFigures[] = [];
for (const name of stackNames) platforms.push(await hashTextFigures(name));
printTable(
  "hash-text: platform vs bare Koa route, and the floor: an empty workflow (and the call's own workflow with an empty step)",
  platforms.flatMap((p) => [...p.rows, ...(p.floor?.rows ?? [])]),
);
for (const platform of platforms) {
  if (platform.anatomy) {
    console.log(
      `\nOne hash-text call at c=1 on the ${platform.stack}, hop by hop (last ${ANATOMY_CALLS} calls; workflow history event times and the caller's clock)`,
    );
    console.table(platform.anatomy);
  }
  for (const { concurrency, perCall } of platform.cpu) {
    printCpu(`CPU ms per hash-text call by process on the ${platform.stack} at c=${concurrency} (/proc, each process group)`, perCall);
  }
  for (const { label, concurrency, perCall } of platform.floor?.cpu ?? []) {
    printCpu(`CPU ms per call: ${label} on the ${platform.stack} at c=${concurrency}`, perCall);
  }
}
for (const platform of platforms) {
  for (const line of floorRatios(platform)) console.log(line);
}
for (const line of tracingRatios(platforms)) console.log(line);
printTable('bcrypt cost 11: hash-wasm vs native', await bcryptFigures());
process.exit(0);
