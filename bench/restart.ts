//! `npm run bench:restart`: what a worker crash costs. Kills the worker process (SIGKILL, then a
//! new one at once, as `kill/workers` in chaos does) RESTART_ROUNDS times, each time with a
//! hash-text call sent at the moment of the kill, and prints how long the new process took to poll
//! every queue, how long that call took to answer, and each part of the new process's start (its
//! `workers polling` log line). Numbers, no asserts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stackControl } from '../test/disruptive/support/stack-control.js';
import { sendCall } from '../test/disruptive/support/tool-client.js';
import { benchApiKey, withTestStack } from './stack.js';

const rounds = Number(process.env.RESTART_ROUNDS ?? 5);

/** The `startMs` of the `workers polling` line of process `pid` (each process's log replaces the last's). */
function startLogged(logDir: string, pid: number): Record<string, number> | undefined {
  const lines = readFileSync(path.join(logDir, 'workers.log'), 'utf8').split('\n').filter((line) => line.includes('"workers polling"'));
  const parsed = lines.map((line) => JSON.parse(line) as { pid: number; startMs: Record<string, number> });
  return parsed.find((line) => line.pid === pid)?.startMs;
}

await withTestStack('restart', async (stack) => {
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
  rows.forEach((r, i) => console.log(`| ${i + 1} | ${r.backMs.toFixed(0)} | ${r.status} | ${r.answerMs.toFixed(0)} | ${parts.map((p) => r.start[p] ?? '').join(' | ')} |`));
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!.toFixed(0);
  console.log(`\nrestart: over ${rounds} kills, median ${median(rows.map((r) => r.backMs))} ms to poll again, ${median(rows.map((r) => r.answerMs))} ms to answer a call sent at the kill`);
}, { LOG_LEVEL: 'info' }); // the start line is logged at info
// The Temporal client connections of the stack's control stay referenced; the other benches end so too.
process.exit(0);
