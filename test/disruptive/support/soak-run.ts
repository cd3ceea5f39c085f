//! The soak run: the load mix for a long while (with a batch every five minutes), a fault every ten minutes, the memory of every
//! stack process sampled every 10 s, latency per tool per ten-minute window, and the ledger audit
//! at the end. `npm run soak` runs it (test/disruptive/run-soak.ts); the memory lands in a CSV and
//! an SVG chart under the run's directory.
import { percentile } from '../../../bench/measure.js';
import { atFixedRate, type ArrivalReport } from './arrivals.js';
import { BATCH_TOOL, batchEnded, startBatch } from './batch-client.js';
import { captureMix, cheapMix, weightedPicker, type MixEntry } from './call-mix.js';
import { auditCalls, type AuditReport } from './ledger-audit.js';
import { nearFault, sampleMemory, type FaultStretch, type MemorySample } from './memory-curve.js';
import type { ClusterProcess, FaultAction, StackControl } from './stack-control.js';
import { startSoakExtras, type SoakExtrasReport } from './soak-extras.js';
import { newRecord, openAccount, sendCall, type CallRecord } from './tool-client.js';
import type { TemporalSettings } from '../../../lib/config-temporal.js';

export interface SoakOptions {
  apiUrl: string;
  adminToken: string;
  control: StackControl;
  pagesUrl: string;
  mongodbUrl: string;
  temporal: TemporalSettings;
  ratePerSecond: number;
  durationMs: number;
  /** A fault this often, the faults taken in turn (default: every ten minutes). */
  faultEveryMs?: number;
  faults?: readonly FaultAction[];
  sampleEveryMs?: number;
  /** Length of the latency windows (default ten minutes). */
  windowMs?: number;
  /** A batch of `items` hash-text items on the soak's account this often, the first at the start (default: 200 every five minutes). */
  batches?: { everyMs: number; items: number };
  /** Each round of memory samples as it is taken. */
  onMemory?: (round: MemorySample[]) => void;
  log: (line: string) => void;
}

export interface FaultWindow extends FaultStretch {
  action: FaultAction;
}

export interface WindowLatency {
  window: number;
  tool: string;
  calls: number;
  p50Ms: number;
  p99Ms: number;
}

export interface SoakResult {
  arrivals: ArrivalReport;
  samples: MemorySample[];
  faults: FaultWindow[];
  /** Latency of the calls sent outside every fault's reach: a fault's own stalls are its window's, not drift. */
  windows: WindowLatency[];
  /** Calls left out of the windows for being sent within a fault's reach. */
  callsNearFaults: number;
  /** 5xx answers (and calls without an answer) sent outside every fault's window. */
  failuresOutsideFaults: CallRecord[];
  audit: AuditReport;
  calls: CallRecord[];
  /** Asynchronous calls with their webhooks, and render links with their cache. */
  extras: SoakExtrasReport;
}

export const DEFAULT_FAULTS: readonly FaultAction[] = ['kill/workers', 'restart/temporal', 'kill/database'];
/** The production-shaped stack's: a cpu worker process killed, the Temporal server restarted, PostgreSQL restarted. */
export const CLUSTER_FAULTS: readonly FaultAction[] = ['kill/worker-cpu-1', 'restart/temporal', 'restart/postgres'];
/**
 * Calls sent this long before a fault may still be running when it strikes (the longest tool
 * deadline and the API's grace), and those sent this long after it may meet what it left behind.
 */
const FAULT_REACH_BEFORE_MS = 100_000;
const FAULT_REACH_AFTER_MS = 30_000;

/** Of the arrivals: render links asked for, and tool calls sent asynchronously; the rest are synchronous calls. */
const LINK_SHARE = 0.1;
const ASYNC_SHARE = 0.05;
/** Spreads the shares evenly over the arrivals (the golden ratio's fraction), without a random source. */
const SHARE_STEP = 0.6180339887;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The row pooling every tool's calls of one mode: the asynchronous calls are too few per tool for a p99 of their own. */
export const ALL_TOOLS = 'all tools';

/** p50/p99 per window of each tool (and mode), and of each mode other than synchronous over every tool. */
export function windowLatencies(calls: readonly CallRecord[], sentAt: ReadonlyMap<CallRecord, number>, windowMs: number): WindowLatency[] {
  const groups = new Map<string, number[]>();
  const add = (key: string, ms: number) => void (groups.get(key)?.push(ms) ?? groups.set(key, [ms]));
  for (const c of calls) {
    if (c.latencyMs === undefined || c.status === undefined) continue;
    const window = Math.floor(sentAt.get(c)! / windowMs);
    add(`${window}\t${c.tool}${c.mode ? ` (${c.mode})` : ''}`, c.latencyMs);
    if (c.mode) add(`${window}\t${ALL_TOOLS} (${c.mode})`, c.latencyMs);
  }
  return [...groups]
    .map(([key, times]) => {
      const [window, tool] = key.split('\t');
      const sorted = times.sort((a, b) => a - b);
      return { window: Number(window), tool: tool!, calls: sorted.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
    })
    .sort((a, b) => a.window - b.window || b.calls - a.calls);
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const faultEveryMs = options.faultEveryMs ?? 10 * 60_000;
  const faultActions = options.faults ?? DEFAULT_FAULTS;
  const targets = { pagesUrl: options.pagesUrl };
  const captures = captureMix(targets);
  const captureTotal = captures.reduce((sum, e) => sum + e.weight, 0);
  const pick = weightedPicker([...cheapMix(targets), ...captures.map((e): MixEntry => ({ ...e, weight: (3 * e.weight) / captureTotal }))]);
  const expected = (options.ratePerSecond * options.durationMs) / 1000;
  const batching = options.batches ?? { everyMs: 5 * 60_000, items: 200 };
  const batchCount = Math.ceil(options.durationMs / batching.everyMs);
  const account = await openAccount(
    options.apiUrl,
    options.adminToken,
    'soak',
    Math.ceil(expected * 30) + batchCount * batching.items * BATCH_TOOL.cost + 1_000,
  );
  const extras = await startSoakExtras({
    apiUrl: options.apiUrl,
    adminToken: options.adminToken,
    main: account,
    linkCredits: Math.ceil(expected) + 1_000,
  });

  const since = Date.now();
  let done = false;
  const samples: MemorySample[] = [];
  const sampler = sampleMemory(options.control, options.sampleEveryMs ?? 10_000, since, samples, () => done, options.onMemory);
  const faults: FaultWindow[] = [];
  const injector = (async () => {
    for (let n = 0; ; n++) {
      const due = (n + 1) * faultEveryMs;
      if (due >= options.durationMs) return;
      await sleep(due - (Date.now() - since));
      const action = faultActions[n % faultActions.length]!;
      const startMs = Date.now() - since;
      await options.control.run(action);
      // The production-shaped stack leaves a killed process down, where its orchestrator would start it again.
      const killed = /^kill\/((?:api|worker)-.+)$/.exec(action)?.[1] as ClusterProcess | undefined;
      if (killed) await options.control.run(`start/${killed}`);
      faults.push({ action, startMs, backMs: Date.now() - since });
      options.log(
        `  minute ${(startMs / 60_000).toFixed(1)}: ${action}, back after ${((faults.at(-1)!.backMs - startMs) / 1000).toFixed(1)} s`,
      );
    }
  })();

  const batchIds: string[] = [];
  const batcher = (async () => {
    for (let n = 0; n < batchCount; n++) {
      await sleep(n * batching.everyMs - (Date.now() - since));
      // A fault may refuse the POST: the same Idempotency-Key asks again until the batch is made.
      for (let attempt = 0; ; attempt++) {
        const id = await startBatch(options.apiUrl, account.apiKey, batching.items, `soak-batch-${since}-${n}`).catch((err: Error) => {
          if (attempt === 30) throw err;
          return undefined;
        });
        if (id) {
          batchIds.push(id);
          break;
        }
        await sleep(2_000);
      }
    }
  })();

  const calls: CallRecord[] = [];
  const sentAt = new Map<CallRecord, number>();
  const linkAsks: CallRecord[] = [];
  const arrivals = await atFixedRate(
    { ratePerSecond: options.ratePerSecond, durationMs: options.durationMs, maxInFlight: 400 },
    async (i) => {
      const share = (i * SHARE_STEP) % 1;
      if (share < LINK_SHARE) {
        const ask = extras.askLink(i);
        linkAsks.push(ask.record);
        sentAt.set(ask.record, Date.now() - since);
        return ask.answered;
      }
      const asynchronous = share < LINK_SHARE + ASYNC_SHARE;
      const record = newRecord(calls.length, pick(), asynchronous ? { mode: 'async' } : {});
      calls.push(record);
      sentAt.set(record, Date.now() - since);
      await (asynchronous ? extras.sendAsync(record) : sendCall(options.apiUrl, account.apiKey, record));
    },
  );
  await injector;
  await batcher;
  for (const id of batchIds) await batchEnded(options.apiUrl, account.apiKey, id, options.log);
  done = true;
  await sampler;

  const withinReach = nearFault(faults, { beforeMs: FAULT_REACH_BEFORE_MS, afterMs: FAULT_REACH_AFTER_MS });
  const sent = [...calls, ...linkAsks];
  const outsideFaults = sent.filter((c) => !withinReach(sentAt.get(c)!));
  const failuresOutsideFaults = outsideFaults.filter((c) => c.status === undefined || c.status >= 500);
  const temporalAndDb = { mongodbUrl: options.mongodbUrl, temporal: options.temporal };
  const audit = await auditCalls({
    apiUrl: options.apiUrl,
    ownerToken: account.ownerToken,
    accountId: account.id,
    grants: account.credits,
    ...temporalAndDb,
    calls,
    batches: batchIds.map((id) => ({ id, apiKey: account.apiKey, cost: BATCH_TOOL.cost })),
  });
  const extrasReport = await extras.finish(temporalAndDb).finally(() => extras.close());
  return {
    arrivals,
    samples,
    faults,
    windows: windowLatencies(outsideFaults, sentAt, options.windowMs ?? 10 * 60_000),
    callsNearFaults: sent.length - outsideFaults.length,
    failuresOutsideFaults,
    audit,
    calls,
    extras: extrasReport,
  };
}

/**
 * Tools whose p99 in the last window is past `ratio` times the first window's (with enough calls in
 * both). Below 100 calls a window's p99 is its slowest call, one call rather than a tail: the soak's
 * asynchronous calls (some 30 a tool a window, each read every 250 ms) are judged pooled instead.
 */
export function latencyDrift(
  windows: readonly WindowLatency[],
  ratio = 1.2,
  minCalls = 100,
): Array<{ tool: string; firstP99: number; lastP99: number }> {
  // Each tool's first and last window with enough calls: a window of a few stragglers answered
  // after the run (the last index) would otherwise leave every tool uncompared.
  const enough = windows.filter((w) => w.calls >= minCalls);
  return [...new Set(enough.map((w) => w.tool))].flatMap((tool) => {
    const mine = enough.filter((w) => w.tool === tool).sort((x, y) => x.window - y.window);
    const [a, b] = [mine[0]!, mine[mine.length - 1]!];
    return b.window > a.window && b.p99Ms > a.p99Ms * ratio ? [{ tool, firstP99: a.p99Ms, lastP99: b.p99Ms }] : [];
  });
}
