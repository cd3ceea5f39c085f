//! `npm run bench:monitors [-- --minutes N] [--compare-skip M]`: 1,000 monitors of hash-text at a
//! 1-minute interval (10 accounts of 100, the default per-account limit) on a stack run as
//! production runs it (bench/stack.ts), measured for N minutes (default 10) after a first minute of
//! warm-up. Prints runs started per minute against the 1,000 scheduled, start lag (a run's step
//! start against the time its schedule meant, from the runs' own records) p50 and p99, the stack's
//! CPU per run against a plain HTTP call of the same tool at the same rate, and Temporal's and the
//! database's CPU and memory minute by minute. BENCH_MONITORS sets another count (multiples of
//! 100); BENCH_TEMPORAL_SETTINGS (`key=value,...`) gives Temporal more dynamic config. With
//! `--compare-skip M` the schedules first run M minutes with Temporal's own overlap policy `SKIP`
//! (the scheduler follows each run to its end) and are then put back to the service's, for the
//! N minutes: the two measured in one run, on one stack.
import { MongoClient, type Collection } from 'mongodb';
import { Client, Connection } from '@temporalio/client';
import { processMemory } from '../test/disruptive/support/stack-control.js';
import { percentile } from './measure.js';
import { cpuPerCall, cpuSnapshot, type CpuSnapshot } from './process-cpu.js';
import { openBenchAccount, postToStack, withBenchStack, type BenchStack } from './stack.js';

const argument = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const MINUTES = Number(argument('--minutes') ?? process.env.BENCH_MINUTES ?? 10);
const COMPARE_SKIP_MINUTES = Number(argument('--compare-skip') ?? 0);
const TEMPORAL_SETTINGS = (process.env.BENCH_TEMPORAL_SETTINGS ?? '').split(',').filter(Boolean);
const MONITORS = Number(process.env.BENCH_MONITORS ?? 1_000);
const PER_ACCOUNT = 100;
/** Schedules whose skipped and missed actions are read at the end. */
const SCHEDULES_SAMPLED = 100;
const MINUTE_MS = 60_000;

/**
 * The history length of a monitor's scheduler workflow (`temporal-sys-scheduler:<schedule id>`, as
 * the server names it); undefined when there is none (a server that keeps its schedules otherwise
 * keeps only a placeholder workflow of that name, whose history does not grow).
 */
function scheduler(temporal: Client, monitorId: string): { length: () => Promise<number | undefined> } {
  const handle = temporal.workflow.getHandle(`temporal-sys-scheduler:monitor-${monitorId}`);
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

type RunRecord = { _id: string; at: Date; scheduledAt?: Date };

interface Measured {
  minutes: number;
  rows: string[];
  /** The runs judged in the window. */
  window: RunRecord[];
  from: number;
  runCpu: number;
  perPart: Array<{ process: string; msPerCall: number }>;
  /** Events one monitor's scheduler workflow added per action; undefined when the server keeps its schedules otherwise. */
  eventsPerAction?: number;
}

/** `minutes` of the monitors running, read minute by minute: runs started, Temporal's and the database's CPU and memory. */
async function measure(
  stack: BenchStack,
  runs: Collection<RunRecord>,
  sample: ReturnType<typeof scheduler>,
  minutes: number,
): Promise<Measured> {
  const eventsBefore = await sample.length();
  const from = Date.now();
  const start = cpuSnapshot(stack.processes);
  let last = start;
  const rows: string[] = [];
  for (let m = 1; m <= minutes; m++) {
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
      `| ${m} | ${started} | ${MONITORS} | ${pct('temporal')}% | ${mem('temporal')} | ${pct('database')}% | ${mem('database')} | ${((allMs(last, now) / MINUTE_MS) * 100).toFixed(0)}% |`,
    );
    console.log(rows.at(-1));
    last = now;
  }
  const window = await runs.find({ at: { $gte: new Date(from), $lt: new Date(Date.now()) }, scheduledAt: { $exists: true } }).toArray();
  const eventsAfter = await sample.length();
  return {
    minutes,
    rows,
    window,
    from,
    runCpu: allMs(start, last) / window.length,
    perPart: cpuPerCall(start, last, window.length).filter((p) => p.process !== 'all'),
    eventsPerAction: eventsBefore !== undefined && eventsAfter !== undefined ? (eventsAfter - eventsBefore) / minutes : undefined,
  };
}

const byProcess = (list: Array<{ process: string; msPerCall: number }>) =>
  list.map((p) => `${p.process} ${p.msPerCall.toFixed(2)} ms`).join(', ');

/** The figures of one measured window, against the plain call's. */
function report(title: string, m: Measured, plain: { cpu: number; parts: Array<{ process: string; msPerCall: number }> }): void {
  const lags = m.window.map((r) => r.at.getTime() - r.scheduledAt!.getTime()).sort((a, b) => a - b);
  const memory = (row: string, column: number) => Number(row.split('|')[column]);
  console.log(`\nbench:monitors: ${MONITORS} hash-text monitors every minute, ${m.minutes} minutes measured${title}`);
  console.log(
    '\n| minute | runs started | scheduled | Temporal CPU | Temporal RSS MiB | database CPU | database RSS MiB | stack CPU (of one core) |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of m.rows) console.log(row);
  const scheduled = MONITORS * m.minutes;
  console.log(
    `\nruns judged in the window: ${m.window.length} of ${scheduled} scheduled (${((m.window.length / scheduled) * 100).toFixed(1)}%)`,
  );
  console.log(`start lag (step start - scheduled time): ${pcts(lags)}`);
  console.log(
    `CPU per run ${m.runCpu.toFixed(2)} ms against ${plain.cpu.toFixed(2)} ms per plain call: ${(m.runCpu / plain.cpu).toFixed(2)}x`,
  );
  console.log(`CPU per run by process: ${byProcess(m.perPart)}`);
  console.log(`CPU per plain call by process: ${byProcess(plain.parts)}`);
  const [first, final] = [m.rows[0]!, m.rows.at(-1)!];
  console.log(
    `RSS from the first minute to the last: Temporal ${memory(first, 5)} -> ${memory(final, 5)} MiB, database ${memory(first, 7)} -> ${memory(final, 7)} MiB`,
  );
  console.log(
    `its schedule's scheduler workflow: ${m.eventsPerAction?.toFixed(1) ?? '?'} events per action (one monitor, over the window)`,
  );
}

/** Every monitor's schedule given the overlap policy `overlap`, a few at a time; answers how many. */
async function setOverlap(temporal: Client, monitorIds: string[], overlap: 'SKIP' | 'ALLOW_ALL'): Promise<number> {
  for (let i = 0; i < monitorIds.length; i += 20)
    await Promise.all(
      monitorIds
        .slice(i, i + 20)
        .map((id) => temporal.schedule.getHandle(`monitor-${id}`).update((p) => ({ ...p, policies: { ...p.policies, overlap } }))),
    );
  return monitorIds.length;
}

await withBenchStack(
  async (stack) => {
    if (!stack.mongodbUrl || !stack.temporal)
      throw new Error('bench:monitors reads the runs from the database and the schedules from Temporal');
    const mongo = await MongoClient.connect(stack.mongodbUrl);
    const runs = mongo.db().collection<RunRecord>('monitor_runs');
    const connection = await Connection.connect({ address: stack.temporal.address });
    const temporal = new Client({ connection, namespace: stack.temporal.namespace });
    const rate = MONITORS; // runs per minute: one a minute each
    const credits = (MINUTES + COMPARE_SKIP_MINUTES + 5) * PER_ACCOUNT + 1_000;
    try {
      // 1. A plain call of the same tool, at the monitors' rate, for a minute: its CPU per call.
      const plainAccount = await openBenchAccount(stack.apiUrl, stack.adminToken, rate * 2 + 100, 'bench monitors');
      await pacedCalls(stack, plainAccount.apiKey, 50, 600);
      const before = cpuSnapshot(stack.processes);
      const failedPlain = await pacedCalls(stack, plainAccount.apiKey, rate, rate);
      const afterPlain = cpuSnapshot(stack.processes);
      const plain = {
        cpu: allMs(before, afterPlain) / rate,
        parts: cpuPerCall(before, afterPlain, rate).filter((p) => p.process !== 'all'),
      };
      console.log(
        `\nplain hash-text calls over HTTP, ${rate} in a minute (failed: ${JSON.stringify(failedPlain)}): ${plain.cpu.toFixed(2)} ms CPU per call`,
      );

      // 2. The monitors, spread over the minute by their phase.
      const accounts = await Promise.all(
        Array.from({ length: MONITORS / PER_ACCOUNT }, () => openBenchAccount(stack.apiUrl, stack.adminToken, credits, 'bench monitors')),
      );
      const madeAt = Date.now();
      const monitorIds: string[] = [];
      for (const account of accounts)
        for (let i = 0; i < PER_ACCOUNT; i++) {
          const made = (await postPatiently(stack, account.ownerToken, '/api/v1/account/monitors', {
            name: `bench ${i}`,
            tool: 'hash-text',
            input: { text: `monitor ${i}` },
            schedule: { every: '1m' },
            assertions: [{ path: '/algorithm', op: 'eq', value: 'sha256' }],
            alert: { notify: [] },
          })) as { id: string };
          monitorIds.push(made.id);
        }
      console.log(`${MONITORS} monitors made in ${((Date.now() - madeAt) / 1000).toFixed(1)} s`);
      // One monitor's scheduler workflow (Temporal's own, inside the server): its history's growth per action.
      const sample = scheduler(temporal, monitorIds[0]!);

      // 3. Optionally, first with Temporal's own skip; then the schedules as the service makes them.
      if (COMPARE_SKIP_MINUTES > 0) {
        const switchedAt = Date.now();
        await setOverlap(temporal, monitorIds, 'SKIP');
        console.log(
          `schedules given overlap SKIP in ${((Date.now() - switchedAt) / 1000).toFixed(1)} s; a minute of warm-up, then ${COMPARE_SKIP_MINUTES} measured`,
        );
        await sleep(MINUTE_MS);
        const skip = await measure(stack, runs, sample, COMPARE_SKIP_MINUTES);
        report(', schedules with overlap SKIP', skip, plain);
        const backAt = Date.now();
        await setOverlap(temporal, monitorIds, 'ALLOW_ALL');
        console.log(`\nschedules given overlap ALLOW_ALL (the service's) in ${((Date.now() - backAt) / 1000).toFixed(1)} s`);
      }
      console.log(`a minute of warm-up, then ${MINUTES} measured`);
      await sleep(MINUTE_MS);
      const measured = await measure(stack, runs, sample, MINUTES);
      report(COMPARE_SKIP_MINUTES > 0 ? ', schedules as the service makes them' : '', measured, plain);
      const split = await lagSplit(temporal, measured.window, measured.from);
      if (split) console.log(split);

      // Temporal's own counts, asked last and allowed to fail: a Temporal that is behind answers slowly.
      const oneRun = measured.window[0]
        ? await temporal.workflow
            .getHandle(measured.window[0]._id)
            .fetchHistory()
            .then(
              (h) => h.events?.length,
              () => undefined,
            )
        : undefined;
      console.log(`Temporal history per run: the run's own workflow ${oneRun ?? '?'} events`);
      // A sample of the schedules: describing all 1,000 of a Temporal that is behind takes minutes.
      let skipped = 0;
      let missed = 0;
      let unread = 0;
      for (const id of monitorIds.slice(0, SCHEDULES_SAMPLED)) {
        const described = await temporal.schedule
          .getHandle(`monitor-${id}`)
          .describe()
          .catch(() => undefined);
        if (!described) unread++;
        skipped += described?.info.numActionsSkippedOverlap ?? 0;
        missed += described?.info.numActionsMissedCatchupWindow ?? 0;
      }
      console.log(
        `actions of ${Math.min(monitorIds.length, SCHEDULES_SAMPLED)} schedules over the whole run: skipped for overlap by Temporal ${skipped}, missed their catch-up window ${missed}${unread ? ` (${unread} schedules not read)` : ''}`,
      );
    } finally {
      await connection.close();
      await mongo.close();
    }
  },
  { temporalOnDisk: true, temporalSettings: TEMPORAL_SETTINGS },
);
