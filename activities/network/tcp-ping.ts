//! TCP "ping": times the three-way handshake to a port of the checked address, where ICMP is
//! not available. Probes start `intervalMs` apart whether or not the previous one answered (as
//! ICMP ping sends), so a run lasts about (count - 1) * interval + timeout at most.
import type { GuardedSockets } from '../../lib/guarded-sockets.js';
import { ServiceError } from '../../contracts/errors.js';
import type { ResolvedTarget } from '../../lib/target-guard.js';
import type { PingAttempt, ProbeStatus } from '../../domain/tools/ping.js';
import { roundMs } from './ping-stats.js';

export interface TcpRun {
  /** A target the guard resolved (its port is the one probed). */
  target: ResolvedTarget;
  count: number;
  timeoutMs: number;
  intervalMs: number;
}

/** What a failed handshake says about the host: refused (it answered RST), unreachable, silent. */
export function failureStatus(err: unknown): ProbeStatus {
  const reason = err instanceof ServiceError ? err.extras.reason : undefined;
  if (reason === 'timeout') return 'timeout';
  if (reason === 'connection_refused') return 'refused';
  if (reason === 'unreachable') return 'unreachable';
  return 'error';
}

async function probeOnce(
  sockets: Pick<GuardedSockets, 'connect'>,
  run: TcpRun,
  sequence: number,
  signal?: AbortSignal,
): Promise<PingAttempt> {
  try {
    const conn = await sockets.connect({ target: run.target, timeoutMs: run.timeoutMs, signal });
    conn.socket.on('error', () => {}); // a reset racing the destroy below must not go unhandled
    conn.socket.destroy();
    return { sequence, success: true, latencyMs: roundMs(conn.connectMs), status: 'open' };
  } catch (err) {
    signal?.throwIfAborted();
    // A refused target is a guard decision, not a lost probe: it cannot happen for an issued target.
    if (err instanceof ServiceError && err.code === 'target_not_allowed') throw err;
    return { sequence, success: false, latencyMs: null, status: failureStatus(err) };
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

export async function tcpProbes(sockets: Pick<GuardedSockets, 'connect'>, run: TcpRun, signal?: AbortSignal): Promise<PingAttempt[]> {
  const probes: Promise<PingAttempt>[] = [];
  for (let i = 0; i < run.count; i++) {
    if (i > 0) await sleep(run.intervalMs, signal);
    const probe = probeOnce(sockets, run, i + 1, signal);
    probe.catch(() => {}); // observed by Promise.all below; this only keeps an early abort from going unhandled
    probes.push(probe);
  }
  return Promise.all(probes);
}
