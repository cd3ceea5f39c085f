//! CPU time of the stack's processes, read from /proc: each one's process group (what it spawned,
//! such as Chromium or LibreOffice, counts with it), its direct children in sessions of their own
//! (PostgreSQL's backends) and the children it has already reaped, so a benchmark can say what a
//! call costs each part of the stack in CPU milliseconds.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second of /proc's time fields (USER_HZ; 100 on Linux almost everywhere). */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** One of the stack's processes by its role, the leader of a process group. */
export interface StackProcess {
  name: string;
  pid: number;
}

interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  /** utime + stime of the process (all its threads), in ms. */
  cpuMs: number;
  /** cutime + cstime: its children that ended and were waited for, in ms. */
  reapedMs: number;
}

/** Fields of /proc/<pid>/stat after the command name, which may itself hold spaces or parentheses. */
export function parseProcStat(pid: number, line: string): ProcStat {
  const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): ppid is field 4, pgrp 5, utime 14, stime 15, cutime 16, cstime 17.
  const ms = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;
  return {
    pid,
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    cpuMs: ms(Number(fields[11]) + Number(fields[12])),
    reapedMs: ms(Number(fields[13]) + Number(fields[14])),
  };
}

function readAll(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      stats.push(parseProcStat(Number(entry), readFileSync(`/proc/${entry}/stat`, 'utf8')));
    } catch {
      // gone between the listing and the read
    }
  }
  return stats;
}

export type CpuSnapshot = Map<string, number>;

/** CPU ms used so far by each named process group. */
export function cpuSnapshot(processes: StackProcess[]): CpuSnapshot {
  const all = readAll();
  const snapshot: CpuSnapshot = new Map();
  for (const p of processes) {
    const members = all.filter((s) => s.pgrp === p.pid || s.pid === p.pid || s.ppid === p.pid);
    snapshot.set(
      p.name,
      members.reduce((sum, s) => sum + s.cpuMs + (s.pid === p.pid ? s.reapedMs : 0), 0),
    );
  }
  return snapshot;
}

/** CPU ms per call of each process between two snapshots, plus their total. */
export function cpuPerCall(before: CpuSnapshot, after: CpuSnapshot, calls: number): Array<{ process: string; msPerCall: number }> {
  const rows = [...after].map(([name, ms]) => ({ process: name, msPerCall: (ms - (before.get(name) ?? 0)) / calls }));
  rows.push({ process: 'all', msPerCall: rows.reduce((sum, r) => sum + r.msPerCall, 0) });
  return rows;
}

/**
 * Waits until the processes together use less than `belowCores` of a core for `seconds`
 * seconds in a row (at most `maxSeconds`), and says how long that took. A stack that has just
 * started is still starting things after it answers (the workers' tool processes, the JIT):
 * measured then, their start would count as calls' CPU.
 */
export async function untilQuiet(
  processes: StackProcess[],
  options: { belowCores?: number; seconds?: number; maxSeconds?: number } = {},
): Promise<{ waitedS: number; quiet: boolean }> {
  const { belowCores = 0.25, seconds = 2, maxSeconds = 120 } = options;
  const began = performance.now();
  let quietFor = 0;
  const totalMs = () => [...cpuSnapshot(processes).values()].reduce((sum, ms) => sum + ms, 0);
  let before = totalMs();
  while (quietFor < seconds && performance.now() - began < maxSeconds * 1000) {
    const t = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = totalMs();
    quietFor = (after - before) / (performance.now() - t) < belowCores ? quietFor + 1 : 0;
    before = after;
  }
  return { waitedS: (performance.now() - began) / 1000, quiet: quietFor >= seconds };
}
