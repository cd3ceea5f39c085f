//! `npm run bench:restart`: what a worker crash costs. Kills the worker process (SIGKILL, then a
//! new one at once, as `kill/workers` in chaos does) RESTART_ROUNDS times, each time with a
//! hash-text call sent at the moment of the kill, and prints how long the new process took to poll
//! every queue, how long that call took to answer, and each part of the new process's start (its
//! `workers polling` log line). Then RESTART_BACKLOG_ROUNDS more kills, each with the chaos run's
//! cheap calls sent at 4/s for 12 s from the kill: how the backlog a restart leaves is served
//! (answers, median and slowest latency). Numbers, no asserts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stackControl } from '../test/disruptive/support/stack-control.js';
import { cheapMix, seededRandom, weightedPicker } from '../test/disruptive/support/call-mix.js';
import { newRecord, sendCall, type CallRecord } from '../test/disruptive/support/tool-client.js';
import { withTestStack } from '../test/disruptive/support/test-like-stack.js';
import { benchApiKey } from './stack.js';

const rounds = Number(process.env.RESTART_ROUNDS ?? 5);
const backlogRounds = Number(process.env.RESTART_BACKLOG_ROUNDS ?? 2);
/** The backlog's calls: as chaos sends them. */
const BACKLOG_RATE_PER_S = 4;
const BACKLOG_MS = 12_000;

/** Each `key` of the JSON lines in workers.log, for the process `pid`. */
function loggedBy<T>(logDir: string, pid: number, message: string, key: string): T | undefined {
  const lines = readFileSync(path.join(logDir, 'workers.log'), 'utf8')
    .split('\n')
    .filter((line) => line.includes(`"${message}"`));
  const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown> & { pid: number });
  return parsed.find((line) => line.pid === pid)?.[key] as T | undefined;
}

/** The `startMs` of the `workers polling` line of process `pid`. */
const startLogged = (logDir: string, pid: number) => loggedBy<Record<string, number>>(logDir, pid, 'workers polling', 'startMs');

await withTestStack(
  'restart',
  async (stack) => {
    const control = stackControl(stack.controlUrl);
    const apiKey = await benchApiKey(stack.apiUrl, stack.adminToken, 1_000_000);
    const call = (i: number) =>
      sendCall(stack.apiUrl, apiKey, { index: i, tool: 'hash-text', cost: 1, body: { text: `restart ${i}`, algorithm: 'sha256' } });
    const warm = await call(0);
    if (warm.status !== 200) throw new Error(`warm-up call answered ${warm.status} ${warm.code ?? warm.failure}`);
    const logDir = path.join(stack.outputDir, 'logs');
    const rows: { backMs: number; answerMs: number; status: string; start: Record<string, number> }[] = [];
    for (let i = 1; i <= rounds; i++) {
      const killed = performance.now();
      const [backMs, answer] = await Promise.all([control.run('kill/workers').then(() => performance.now() - killed), call(i)]);
      // The new process polls right after logging its start; the log may reach the file a moment later.
      const { workers } = await control.pids();
      let start = startLogged(logDir, workers!);
      for (let waited = 0; !start && waited < 10_000; waited += 100) {
        await sleep(100);
        start = startLogged(logDir, workers!);
      }
      rows.push({ backMs, answerMs: answer.latencyMs ?? NaN, status: String(answer.status ?? answer.failure), start: start ?? {} });
      await sleep(1_000);
    }
    const parts = [...new Set(rows.flatMap((r) => Object.keys(r.start)))];
    console.log(`\n| round | polling again after ms | call at the kill: answer | ms | ${parts.map((p) => `start: ${p} ms`).join(' | ')} |`);
    console.log(`|${' --- |'.repeat(4 + parts.length)}`);
    rows.forEach((r, i) =>
      console.log(
        `| ${i + 1} | ${r.backMs.toFixed(0)} | ${r.status} | ${r.answerMs.toFixed(0)} | ${parts.map((p) => r.start[p] ?? '').join(' | ')} |`,
      ),
    );
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!.toFixed(0);
    console.log(
      `\nrestart: over ${rounds} kills, median ${median(rows.map((r) => r.backMs))} ms to poll again, ${median(rows.map((r) => r.answerMs))} ms to answer a call sent at the kill`,
    );

    if (backlogRounds > 0) {
      const pick = weightedPicker(cheapMix({ pagesUrl: stack.pagesUrl }), seededRandom(1123));
      console.log(`\n| backlog round | polling again after ms | heavy start after polling ms | calls | 200 | median ms | slowest ms |`);
      console.log(`|${' --- |'.repeat(7)}`);
      for (let r = 1; r <= backlogRounds; r++) {
        const killed = performance.now();
        const back = control.run('kill/workers').then(() => performance.now() - killed);
        const sent: Promise<CallRecord>[] = [];
        for (let i = 0; i < (BACKLOG_RATE_PER_S * BACKLOG_MS) / 1000; i++) {
          sent.push(sendCall(stack.apiUrl, apiKey, newRecord(10_000 * r + i, pick())));
          await sleep(1000 / BACKLOG_RATE_PER_S);
        }
        const [backMs, answers] = await Promise.all([back, Promise.all(sent)]);
        const { workers } = await control.pids();
        await sleep(1_000);
        const heavy = loggedBy<number>(logDir, workers!, 'backlog served: starting the heavy tool processes', 'afterPollingMs');
        const latencies = answers.map((a) => a.latencyMs ?? NaN).filter(Number.isFinite);
        const ok = answers.filter((a) => a.status === 200).length;
        console.log(
          `| ${r} | ${backMs.toFixed(0)} | ${heavy ?? 'at start'} | ${answers.length} | ${ok} | ${median([...latencies])} | ${Math.max(...latencies).toFixed(0)} |`,
        );
        await sleep(3_000);
      }
    }
  },
  { LOG_LEVEL: 'info' },
); // the start line is logged at info
// The Temporal client connections of the stack's control stay referenced; the other benches end so too.
process.exit(0);
