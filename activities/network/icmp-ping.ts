//! ICMP echo through the system `ping` (iputils): it holds the raw-socket privilege (file
//! capability cap_net_raw or unprivileged ping sockets) that a Node process usually lacks. It is
//! run with an argument array (never a shell) against the address the guard checked, and its
//! per-probe lines are parsed; the summary line is ignored and recomputed from them.
import { spawn } from 'node:child_process';
import type { PingAttempt, ProbeStatus } from '../../domain/tools/ping.js';

export interface IcmpRun {
  /** The checked IP address (never a name: ping must not resolve anything itself). */
  address: string;
  family: 4 | 6;
  count: number;
  timeoutMs: number;
  intervalMs: number;
}

export interface IcmpPinger {
  /** Whether this process can send ICMP echo here (checked once, then remembered). */
  available(): Promise<boolean>;
  probe(run: IcmpRun, signal?: AbortSignal): Promise<PingAttempt[]>;
}

export interface IcmpPingerOptions {
  /** @default 'ping' from PATH. */
  binary?: string;
}

/** Thrown when ICMP cannot be used at all (no binary, no privilege): a configuration problem. */
export class IcmpUnavailableError extends Error {
  override readonly name = 'IcmpUnavailableError';
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** The argument array for iputils ping. `-n`: no reverse lookups of the replying address. */
export function pingArgs(run: IcmpRun): string[] {
  return [
    '-n',
    '-c',
    String(run.count),
    '-i',
    seconds(run.intervalMs),
    '-W',
    seconds(run.timeoutMs),
    run.family === 6 ? '-6' : '-4',
    run.address,
  ];
}

const REPLY = /^\d+ bytes from .*?: icmp_seq=(\d+) .*?time[=<]([\d.]+) ms(.*)$/;
const ERROR_REPLY = /^From .*? icmp_seq=(\d+) (.+)$/;

function errorStatus(text: string): ProbeStatus {
  return /unreachable|prohibited|time to live exceeded|redirect/i.test(text) ? 'unreachable' : 'error';
}

/**
 * Per-probe results from iputils ping's output (`LC_ALL=C`). A sequence number with no line is a
 * timeout; a reply slower than `timeoutMs` counts as one too (iputils may wait longer than asked
 * for the last probe); duplicates (`DUP!`) are ignored.
 */
export function parsePingOutput(stdout: string, count: number, timeoutMs: number): PingAttempt[] {
  const seen = new Map<number, PingAttempt>();
  for (const line of stdout.split(/\r?\n/)) {
    let m = REPLY.exec(line);
    if (m) {
      const sequence = Number(m[1]);
      if (seen.get(sequence)?.success || /DUP!/.test(m[3]!)) continue;
      const latency = Number(m[2]);
      seen.set(
        sequence,
        latency <= timeoutMs
          ? { sequence, success: true, latencyMs: latency, status: 'reply' }
          : { sequence, success: false, latencyMs: null, status: 'timeout' },
      );
      continue;
    }
    m = ERROR_REPLY.exec(line);
    if (m && !seen.has(Number(m[1])))
      seen.set(Number(m[1]), { sequence: Number(m[1]), success: false, latencyMs: null, status: errorStatus(m[2]!) });
  }
  return Array.from(
    { length: count },
    (_, i) => seen.get(i + 1) ?? { sequence: i + 1, success: false, latencyMs: null, status: 'timeout' as const },
  );
}

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
  spawnError?: NodeJS.ErrnoException;
}

const MAX_OUTPUT = 64 * 1024;

function run(binary: string, args: string[], hardDeadlineMs: number, signal?: AbortSignal): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(binary, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout = (stdout + s).slice(0, MAX_OUTPUT)));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(0, MAX_OUTPUT)));
    const kill = () => child.kill('SIGKILL');
    const timer = setTimeout(kill, hardDeadlineMs);
    signal?.addEventListener('abort', kill, { once: true });
    const done = (exit: Omit<Exit, 'stdout' | 'stderr'>) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', kill);
      resolve({ ...exit, stdout, stderr });
    };
    child.once('error', (err: NodeJS.ErrnoException) => done({ code: null, spawnError: err }));
    child.once('close', (code) => done({ code }));
  });
}

const NO_PRIVILEGE = /operation not permitted|permission denied|socktype|raw socket/i;
const NO_ROUTE = /unreachable|no route|cannot assign requested address|address family not supported/i;

export function createIcmpPinger(options: IcmpPingerOptions = {}): IcmpPinger {
  const binary = options.binary ?? 'ping';
  let availability: Promise<boolean> | undefined;

  return {
    available() {
      // One echo to this host's own loopback: proves the binary exists and may open its socket.
      availability ??= run(binary, ['-n', '-c', '1', '-W', '1', '127.0.0.1'], 5_000).then((exit) => exit.code === 0);
      return availability;
    },

    async probe(req, signal) {
      const hardDeadline = (req.count - 1) * req.intervalMs + req.timeoutMs + 2_000;
      const exit = await run(binary, pingArgs(req), hardDeadline, signal);
      signal?.throwIfAborted();
      if (exit.spawnError) throw new IcmpUnavailableError(`cannot run ${binary}: ${exit.spawnError.code ?? exit.spawnError.message}`);
      // iputils: 0 some reply, 1 no reply, 2 an error before or while sending.
      if (exit.code === 0 || exit.code === 1 || exit.code === null) return parsePingOutput(exit.stdout, req.count, req.timeoutMs);
      if (NO_PRIVILEGE.test(exit.stderr)) throw new IcmpUnavailableError(`${binary} may not send ICMP here: ${exit.stderr.trim()}`);
      if (NO_ROUTE.test(exit.stderr)) {
        return Array.from({ length: req.count }, (_, i) => ({
          sequence: i + 1,
          success: false,
          latencyMs: null,
          status: 'unreachable' as const,
        }));
      }
      throw new Error(`${binary} failed (exit ${exit.code}): ${exit.stderr.trim().slice(0, 500)}`);
    },
  };
}
