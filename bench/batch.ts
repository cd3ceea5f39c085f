//! `npm run bench:batch`: batches against single calls. 1,000 hash-text items as one batch against
//! the same 1,000 calls over HTTP at c=32 (wall time, and the stack's CPU per item and per call);
//! then another account's single hash-text calls (c=1) with no batch running and while a 2,000-item
//! batch runs, their p50 side by side. The batch runs at the stack's BATCH_CONCURRENCY (default 4)
//! and BATCH_YIELD_MS (default 250: how much later each item starts the next while single calls run
//! on its worker); set them in the environment to compare.
import { measure, printTable, type Figures } from './measure.js';
import { cpuPerCall, cpuSnapshot } from './process-cpu.js';
import { postToStack, withBenchStack, type BenchStack } from './stack.js';
import { SINGLE_CALL_QUIET_MS } from '../activities/single-calls.js';

const ITEMS = Number(process.env.BENCH_BATCH_ITEMS ?? 1_000);
const BIG_ITEMS = Number(process.env.BENCH_BATCH_BIG_ITEMS ?? 2_000);
const SINGLE_CALLS = Number(process.env.BENCH_SINGLE_CALLS ?? 100);
/** How often the bench reads a running batch to see whether it ended. */
const POLL_MS = 250;

/** What the bench reads of a batch (`GET /api/v1/batches/{id}`). */
interface BatchRead {
  id: string;
  completedAt?: string | null;
  counts: Record<string, number>;
}

async function batchOf(stack: BenchStack, key: string, id: string): Promise<BatchRead> {
  const res = await fetch(`${stack.apiUrl}/api/v1/batches/${id}`, { headers: { authorization: `Bearer ${key}` } });
  return res.json();
}

/** Makes a batch of `n` hash-text items and answers when its last item ended, with the time it took. */
async function runBatch(stack: BenchStack, key: string, n: number, tag: string): Promise<{ ms: number; batch: BatchRead }> {
  const started = performance.now();
  const made = (await postToStack(stack, key, '/api/v1/batches', {
    tool: 'hash-text',
    items: Array.from({ length: n }, (_, i) => ({ text: `${tag} ${i}` })),
  })) as BatchRead;
  for (;;) {
    const batch = await batchOf(stack, key, made.id);
    if (batch.completedAt) return { ms: performance.now() - started, batch };
    // A running batch's counts are counted from its items at each read: read as a client
    // following a batch would, not so often that the reads weigh on what is measured (<= 1%).
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

const hashCall = (stack: BenchStack, key: string) => (i: number) =>
  postToStack(stack, key, '/api/v1/tools/hash-text', { text: `single ${i}` });
const allCpu = (perCall: ReturnType<typeof cpuPerCall>) => perCall.find((p) => p.process === 'all')?.msPerCall ?? NaN;

await withBenchStack(async (stack) => {
  const key = await stack.newApiKey(ITEMS * 3 + BIG_ITEMS + 1_000);
  const other = await stack.newApiKey(SINGLE_CALLS * 3 + 100);
  await runBatch(stack, key, 20, 'warm-up');

  // 1. The same 1,000 hash-text calls: over HTTP at c=32, then as one batch.
  let before = cpuSnapshot(stack.processes);
  const http = await measure('HTTP c=32', hashCall(stack, key), { calls: ITEMS, concurrency: 32 });
  const httpPerCall = cpuPerCall(before, cpuSnapshot(stack.processes), ITEMS);
  // The batch alone: its items yield to single calls for a moment after the last one ended.
  await new Promise((r) => setTimeout(r, SINGLE_CALL_QUIET_MS));
  before = cpuSnapshot(stack.processes);
  const batch = await runBatch(stack, key, ITEMS, 'batch');
  const batchPerItem = cpuPerCall(before, cpuSnapshot(stack.processes), ITEMS);
  const [httpCpu, batchCpu] = stack.processes.length ? [allCpu(httpPerCall), allCpu(batchPerItem)] : [NaN, NaN];
  if (batch.batch.counts.succeeded !== ITEMS) throw new Error(`the batch ended with ${JSON.stringify(batch.batch.counts)}`);
  printTable(`${ITEMS} hash-text calls`, [http]);
  const httpMs = (http.calls / http.callsPerSecond) * 1000;
  console.log(
    `\n${ITEMS} hash-text items as one batch: ${(batch.ms / 1000).toFixed(2)} s against ${(httpMs / 1000).toFixed(2)} s over HTTP at c=32: ${(batch.ms / httpMs).toFixed(2)}x`,
  );
  console.log(
    `CPU, all processes: ${batchCpu.toFixed(2)} ms per batch item against ${httpCpu.toFixed(2)} ms per HTTP call (${(batchCpu / httpCpu).toFixed(2)}x)`,
  );
  if (stack.processes.length) {
    console.table(
      batchPerItem.map(({ process, msPerCall }, i) => ({
        process,
        'ms per batch item': +msPerCall.toFixed(2),
        'ms per HTTP call': +httpPerCall[i]!.msPerCall.toFixed(2),
      })),
    );
  }

  // 2. Another account's single calls, with no batch and while a 2,000-item batch runs.
  const quiet = await measure('single calls, no batch', hashCall(stack, other), { calls: SINGLE_CALLS, concurrency: 1 });
  const bigStarted = performance.now();
  const big = runBatch(stack, key, BIG_ITEMS, 'big');
  await new Promise((r) => setTimeout(r, 1_000)); // the batch is under way
  const busy = await measure(`single calls, ${BIG_ITEMS}-item batch running`, hashCall(stack, other), {
    calls: SINGLE_CALLS,
    concurrency: 1,
    warmup: 0,
  });
  const busyEnded = performance.now() - bigStarted;
  const { ms: bigMs } = await big;
  printTable("another account's hash-text calls (c=1)", [quiet, busy] as Figures[]);
  console.log(
    `\np50 while the batch runs: ${busy.p50Ms.toFixed(1)} ms against ${quiet.p50Ms.toFixed(1)} ms with none: ${(busy.p50Ms / quiet.p50Ms).toFixed(2)}x`,
  );
  console.log(
    `(the ${BIG_ITEMS}-item batch took ${(bigMs / 1000).toFixed(1)} s; the single calls ended ${(busyEnded / 1000).toFixed(1)} s after it started${busyEnded < bigMs ? ', all while it ran' : ': some after it ended, raise BENCH_BATCH_BIG_ITEMS'})`,
  );
});
