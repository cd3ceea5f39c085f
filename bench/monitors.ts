//! `npm run bench:monitors [-- --minutes N]`: 1,000 monitors of hash-text at a 1-minute interval
//! (10 accounts of 100, the default per-account limit) on a stack run as production runs it
//! (bench/stack.ts), measured for N minutes (default 10) after a first minute of warm-up. Prints
//! runs started per minute against the 1,000 scheduled, start lag (a run's step start against the
//! time its schedule meant, from the runs' own records) p50 and p99, the stack's CPU per run
//! against a plain HTTP call of the same tool at the same rate, and Temporal's and the database's
//! CPU and memory minute by minute. BENCH_MONITORS sets another count (multiples of 100).
import { MongoClient } from 'mongodb';
import { Client, Connection } from '@temporalio/client';
import { processMemory } from '../test/disruptive/support/stack-control.js';
import { percentile } from './measure.js';
import { cpuPerCall, cpuSnapshot, type CpuSnapshot } from './process-cpu.js';
import { openBenchAccount, postToStack, withBenchStack, type BenchStack } from './stack.js';

const flag = process.argv.indexOf('--minutes');
const MINUTES = Number(flag > 0 ? process.argv[flag + 1] : (process.env.BENCH_MINUTES ?? 10));
const MONITORS = Number(process.env.BENCH_MONITORS ?? 1_000);
const PER_ACCOUNT = 100;
/** Schedules whose skipped and missed actions are read at the end. */
const SCHEDULES_SAMPLED = 100;
const MINUTE_MS = 60_000;

/**
 * The history length of one monitor's scheduler workflow (`temporal-sys-scheduler:<schedule id>`, as
 * the server names it); undefined when the server keeps its schedules otherwise.
 */
async function scheduler(temporal: Client): Promise<{ length: () => Promise<number | undefined> }> {
  let id: string | undefined;
  for await (const s of temporal.schedule.list()) if (s.scheduleId.startsWith('monitor-')) id ??= s.scheduleId;
  const handle = temporal.workflow.getHandle(`temporal-sys-scheduler:${id}`);
  return {
    length: () =>
      handle.describe().then(
        (d) => d.historyLength,
        () => undefined,
      ),
  };
}

const pcts = (sorted: number[]) =>
  `p50 ${percentile(sorted, 50).toFixed(0)} ms, p90 ${percentile(sorted, 90).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms, max ${sorted.at(-1)} ms`;

/**
 * The start lag in its two parts, from Temporal's visibility: the schedule's part (the run's
 * workflow started after its time) and the workers' part (its step started after the workflow).
 */
async function lagSplit(temporal: Client, window: Array<{ _id: string; at: Date; scheduledAt?: Date }>, from: number) {
  const started = new Map<string, number>();
  const query = `WorkflowType = 'toolCall' AND StartTime >= '${new Date(from - MINUTE_MS).toISOString()}'`;
  try {
    for await (const w of temporal.workflow.list({ query, pageSize: 1000 })) started.set(w.workflowId, w.startTime.getTime());
  } catch (err) {
    return `start lag by part: Temporal's visibility did not answer (${(err as Error).message})`;
  }
  const schedule: number[] = [];
  const workers: number[] = [];
  for (const run of window) {
    const at = started.get(run._id);
    if (at === undefined || !run.scheduledAt) continue;
    schedule.push(at - run.scheduledAt.getTime());
    workers.push(run.at.getTime() - at);
  }
  const sort = (xs: number[]) => xs.sort((a, b) => a - b);
  return `start lag by part (${schedule.length} runs found in visibility): schedule -> workflow start ${pcts(sort(schedule))}; workflow start -> step start ${pcts(sort(workers))}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const allMs = (before: CpuSnapshot, after: CpuSnapshot) => cpuPerCall(before, after, 1).find((p) => p.process === 'all')!.msPerCall;
const partMs = (before: CpuSnapshot, after: CpuSnapshot, name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);

/** `calls` hash-text calls over HTTP at an even pace of `perMinute` (the monitors' own rate), each awaited; the failures by what they were. */
async function pacedCalls(stack: BenchStack, key: string, calls: number, perMinute: number): Promise<Record<string, number>> {
  const gap = MINUTE_MS / perMinute;
  const started = performance.now();
  const pending: Promise<void>[] = [];
  const failed: Record<string, number> = {};
  for (let i = 0; i < calls; i++) {
    await sleep(Math.max(0, started + i * gap - performance.now()));
    pending.push(
      postToStack(stack, key, '/api/v1/tools/hash-text', { text: `plain ${i}` }).then(
        () => undefined,
        (err: Error) => {
          const what = /: (\d{3}) /.exec(err.message)?.[1] ?? err.message.slice(0, 40);
          failed[what] = (failed[what] ?? 0) + 1;
        },
      ),
    );
  }
  await Promise.all(pending);
  return failed;
}

/** POSTs, trying again while the stack answers 503 (a moment's outage of its database or Temporal). */
async function postPatiently(stack: BenchStack, token: string, path: string, body: unknown): Promise<unknown> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await postToStack(stack, token, path, body);
    } catch (err) {
      if (attempt >= 10 || !/: 503 /.test((err as Error).message)) throw err;
      await sleep(1_000 * attempt);
    }
  }
}

await withBenchStack(
  async (stack) => {
    if (!stack.mongodbUrl || !stack.temporal)
      throw new Error('bench:monitors reads the runs from the database and the schedules from Temporal');
    const mongo = await MongoClient.connect(stack.mongodbUrl);
    const runs = mongo.db().collection<{ _id: string; at: Date; scheduledAt?: Date }>('monitor_runs');
    const connection = await Connection.connect({ address: stack.temporal.address });
    const temporal = new Client({ connection, namespace: stack.temporal.namespace });
    const rate = MONITORS; // runs per minute: one a minute each
    const credits = (MINUTES + 3) * PER_ACCOUNT + 1_000;
    try {
      // 1. A plain call of the same tool, at the monitors' rate, for a minute: its CPU per call.
      const plain = await openBenchAccount(stack.apiUrl, stack.adminToken, rate * 2 + 100, 'bench monitors');
      await pacedCalls(stack, plain.apiKey, 50, 600);
      const before = cpuSnapshot(stack.processes);
      const failedPlain = await pacedCalls(stack, plain.apiKey, rate, rate);
      const afterPlain = cpuSnapshot(stack.processes);
      const plainCpu = allMs(before, afterPlain) / rate;
      const plainParts = cpuPerCall(before, afterPlain, rate).filter((p) => p.process !== 'all');
      console.log(
        `\nplain hash-text calls over HTTP, ${rate} in a minute (failed: ${JSON.stringify(failedPlain)}): ${plainCpu.toFixed(2)} ms CPU per call`,
      );

      // 2. The monitors, spread over the minute by their phase.
      const accounts = await Promise.all(
        Array.from({ length: MONITORS / PER_ACCOUNT }, () => openBenchAccount(stack.apiUrl, stack.adminToken, credits, 'bench monitors')),
      );
      const madeAt = Date.now();
      for (const account of accounts)
        for (let i = 0; i < PER_ACCOUNT; i++)
          await postPatiently(stack, account.ownerToken, '/api/v1/account/monitors', {
            name: `bench ${i}`,
            tool: 'hash-text',
            input: { text: `monitor ${i}` },
            schedule: { every: '1m' },
            assertions: [{ path: '/algorithm', op: 'eq', value: 'sha256' }],
            alert: { notify: [] },
          });
      console.log(
        `${MONITORS} monitors made in ${((Date.now() - madeAt) / 1000).toFixed(1)} s; a minute of warm-up, then ${MINUTES} measured`,
      );
      await sleep(MINUTE_MS + (MINUTE_MS - ((Date.now() - madeAt) % MINUTE_MS)));

      // 3. N minutes, read minute by minute.
      // One monitor's scheduler workflow (Temporal's own, inside the server): its history's growth per action.
      const sample = await scheduler(temporal);
      const eventsBefore = await sample.length();
      const from = Date.now();
      const start = cpuSnapshot(stack.processes);
      let last = start;
      const rows: string[] = [];
      for (let m = 1; m <= MINUTES; m++) {
        await sleep(from + m * MINUTE_MS - Date.now());
        const now = cpuSnapshot(stack.processes);
        const mem = (name: string) => {
          const pid = stack.processes.find((p) => p.name === name)?.pid;
          return pid ? (processMemory(pid).groupRssKiB / 1024).toFixed(0) : '?';
        };
        const started = await runs.countDocuments({
          at: { $gte: new Date(from + (m - 1) * MINUTE_MS), $lt: new Date(from + m * MINUTE_MS) },
        });
        const pct = (name: string) => ((partMs(last, now, name) / MINUTE_MS) * 100).toFixed(1);
        rows.push(
          `| ${m} | ${started} | ${rate} | ${pct('temporal')}% | ${mem('temporal')} | ${pct('database')}% | ${mem('database')} | ${((allMs(last, now) / MINUTE_MS) * 100).toFixed(0)}% |`,
        );
        console.log(rows.at(-1));
        last = now;
      }
      const to = Date.now();
      const window = await runs.find({ at: { $gte: new Date(from), $lt: new Date(to) }, scheduledAt: { $exists: true } }).toArray();
      const lags = window.map((r) => r.at.getTime() - r.scheduledAt!.getTime()).sort((a, b) => a - b);
      const runCpu = allMs(start, last) / window.length;
      const memory = (row: string, column: number) => Number(row.split('|')[column]);

      console.log(`\nbench:monitors: ${MONITORS} hash-text monitors every minute, ${MINUTES} minutes measured`);
      console.log(
        '\n| minute | runs started | scheduled | Temporal CPU | Temporal RSS MiB | database CPU | database RSS MiB | stack CPU (of one core) |',
      );
      console.log('|---|---|---|---|---|---|---|---|');
      for (const row of rows) console.log(row);
      console.log(
        `\nruns judged in the window: ${window.length} of ${rate * MINUTES} scheduled (${((window.length / (rate * MINUTES)) * 100).toFixed(1)}%)`,
      );
      console.log(`start lag (step start - scheduled time): ${pcts(lags)}`);
      const split = await lagSplit(temporal, window, from);
      if (split) console.log(split);
      console.log(
        `CPU per run ${runCpu.toFixed(2)} ms against ${plainCpu.toFixed(2)} ms per plain call: ${(runCpu / plainCpu).toFixed(2)}x`,
      );
      const perPart = cpuPerCall(start, last, window.length).filter((p) => p.process !== 'all');
      const byProcess = (list: typeof perPart) => list.map((p) => `${p.process} ${p.msPerCall.toFixed(2)} ms`).join(', ');
      console.log(`CPU per run by process: ${byProcess(perPart)}`);
      console.log(`CPU per plain call by process: ${byProcess(plainParts)}`);
      const [first, final] = [rows[0]!, rows.at(-1)!];
      console.log(
        `RSS from the first minute to the last: Temporal ${memory(first, 5)} -> ${memory(final, 5)} MiB, database ${memory(first, 7)} -> ${memory(final, 7)} MiB`,
      );

      // Temporal's own counts, asked last and allowed to fail: a Temporal that is behind answers slowly.
      const eventsAfter = await sample.length();
      const oneRun = window[0]
        ? await temporal.workflow
            .getHandle(window[0]._id)
            .fetchHistory()
            .then(
              (h) => h.events?.length,
              () => undefined,
            )
        : undefined;
      console.log(
        `Temporal history per run: the run's own workflow ${oneRun ?? '?'} events; its schedule's scheduler workflow ${eventsBefore !== undefined && eventsAfter !== undefined ? ((eventsAfter - eventsBefore) / MINUTES).toFixed(1) : '?'} events per action (one monitor, over the window)`,
      );
      // A sample of the schedules: describing all 1,000 of a Temporal that is behind takes minutes.
      let skipped = 0;
      let missed = 0;
      let unread = 0;
      let read = 0;
      for await (const schedule of temporal.schedule.list()) {
        if (!schedule.scheduleId.startsWith('monitor-')) continue;
        if (++read > SCHEDULES_SAMPLED) break;
        const described = await temporal.schedule
          .getHandle(schedule.scheduleId)
          .describe()
          .catch(() => undefined);
        if (!described) unread++;
        skipped += described?.info.numActionsSkippedOverlap ?? 0;
        missed += described?.info.numActionsMissedCatchupWindow ?? 0;
      }
      console.log(
        `actions of ${Math.min(read, SCHEDULES_SAMPLED)} schedules over the whole run: skipped for overlap ${skipped}, missed their catch-up window ${missed}${unread ? ` (${unread} schedules not read)` : ''}`,
      );
    } finally {
      await connection.close();
      await mongo.close();
    }
  },
  { temporalOnDisk: true },
);
