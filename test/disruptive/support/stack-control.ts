//! Client of the test stack's control endpoint (scripts/stack/control.ts), and the memory of
//! the stack's processes as /proc tells it.
import { readFileSync, readdirSync } from 'node:fs';

/** Control actions that break a part and return once it is back (`outage/...`: down for 15 s). */
export type FaultAction =
  | 'kill/workers'
  | 'kill/temporal'
  | 'restart/temporal'
  | 'kill/database'
  | 'outage/workers'
  | 'outage/temporal'
  | 'outage/database'
  // Held down until the matching start: the test decides how long.
  | 'stop/workers'
  | 'start/workers'
  | 'stop/temporal'
  | 'start/temporal'
  | 'stop/database'
  | 'start/database'
  // The production-shaped stack's (scripts/stack/cluster.ts): one process of a kind, PostgreSQL.
  | `kill/${ClusterProcess}`
  | 'restart/postgres'
  | 'outage/postgres';

/** Processes of the production-shaped stack that its control endpoint kills (and starts: `start/<name>`). */
export type ClusterProcess = 'api-1' | 'api-2' | 'worker-core' | 'worker-cpu-1' | 'worker-cpu-2' | 'worker-network' | 'worker-browser';

export interface StackControl {
  /** Runs an action; resolves once the part is back. */
  run(action: FaultAction | `start/${ClusterProcess}`): Promise<void>;
  /** Process id of each part (api, workers, temporal, database, fixtures) now. */
  pids(): Promise<Record<string, number>>;
}

export function stackControl(url: string): StackControl {
  async function post(action: string): Promise<unknown> {
    const res = await fetch(`${url}/${action}`, { method: 'POST', signal: AbortSignal.timeout(180_000) });
    const body = (await res.json()) as { ok: boolean; result?: unknown; error?: string };
    if (!body.ok) throw new Error(`stack control ${action}: ${body.error ?? res.status}`);
    return body.result;
  }
  return {
    run: async (action) => void (await post(action)),
    pids: async () => (await post('processes')) as Record<string, number>,
  };
}

export interface ProcessMemory {
  /** Resident set of the process itself, KiB (VmRSS). */
  rssKiB: number;
  /** The process and every process it started, directly or not (Chromium, LibreOffice ...), KiB. */
  groupRssKiB: number;
  /**
   * The same tree's proportional set (Pss: each shared page split among the processes sharing it),
   * KiB: what the tree really holds. Summed RSS counts PostgreSQL's shared buffers once per backend
   * and Chromium's shared pages once per renderer, so it grows as they touch more of them.
   */
  groupPssKiB: number;
  /** How many processes that tree holds. */
  groupSize: number;
}

/** A `<field>: <n> kB` line of a /proc file, KiB; 0 when the process is gone meanwhile. */
function kibOf(file: string, field: string): number {
  try {
    return Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(readFileSync(file, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

const rssOf = (pid: number | string) => kibOf(`/proc/${pid}/status`, 'VmRSS');
const pssOf = (pid: number | string) => kibOf(`/proc/${pid}/smaps_rollup`, 'Pss');

/** Parent of `pid` (field 4 of /proc/<pid>/stat; the comm field may hold spaces). */
function parentOf(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/**
 * Memory of a stack part and every process it started, by parentage rather than process group:
 * puppeteer starts Chromium in a group of its own.
 */
export function processMemory(pid: number): ProcessMemory {
  const children = new Map<number, string[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const parent = parentOf(name);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), name]);
  }
  const members: string[] = [];
  const queue = [String(pid)];
  while (queue.length) {
    const next = queue.shift()!;
    members.push(next);
    queue.push(...(children.get(Number(next)) ?? []));
  }
  return {
    rssKiB: rssOf(pid),
    groupRssKiB: members.reduce((sum, member) => sum + rssOf(member), 0),
    groupPssKiB: members.reduce((sum, member) => sum + pssOf(member), 0),
    groupSize: members.length,
  };
}
