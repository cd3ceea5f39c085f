//! Ports and readiness polling for the local stack.
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeLoopbackPort } from '../../lib/free-port.js';
import type { ManagedProcess } from './supervisor.js';

const handedOut = new Set<number>();

/**
 * A port that is free on 127.0.0.1 right now. The OS picks it; ports already handed out by this
 * process are skipped, so the several ports of one test stack never collide with each other.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await freeLoopbackPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/**
 * A free port below the OS's ephemeral range, for servers that store their ports in a signed
 * 16-bit column (Temporal's cluster membership: 32767 at most). Tried at random in [min, max].
 */
export async function freeLowPort(min = 20_000, max = 32_767): Promise<number> {
  for (;;) {
    const port = min + Math.floor(Math.random() * (max - min + 1));
    if (handedOut.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.unref();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) {
      handedOut.add(port);
      return port;
    }
  }
}

/** Something already listens on a port a part needs; `reason` and `remedy` make its StartError. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  readonly reason: string;
  readonly remedy: string;

  constructor(
    readonly port: number,
    readonly what: string,
    hint: string,
  ) {
    super(`port ${port} (${what}) is already in use${hint ? `: ${hint}` : ''}`);
    this.reason = `port ${port} (${what}) is already in use`;
    this.remedy = hint || 'stop what listens on it, or give the part another port';
  }
}

/** Fails with a clear message when something already listens on a fixed port we need. */
export async function assertPortFree(port: number, what: string, hint = ''): Promise<void> {
  const free = await new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
  if (!free) throw new PortInUseError(port, what, hint);
}

/** Starts of a part on a new port when another program bound its port first. */
const PORT_ATTEMPTS = 3;

/**
 * Starts a part on its chosen port, and again on a new one when the start failed because another
 * program bound that port first: between picking a free port and binding it, a busy machine's
 * other programs (another test run, a browser) may take it. `clean` (awaited) drops what the failed
 * start left, and picks the part's other ports afresh when it has more than one. The new port stays in
 * `options`, so later restarts use it.
 */
export async function onAnotherPortIfTaken<T>(options: { port: number }, start: () => Promise<T>, clean: () => unknown): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      const taken = err instanceof PortInUseError || /address already in use|EADDRINUSE/i.test((err as Error).message);
      if (attempt === PORT_ATTEMPTS || !taken) throw err;
      console.error(
        `stack: a port was taken before the part could bind it; starting it again on another (${(err as Error).message.split('\n')[0]})`,
      );
      await clean();
      options.port = await freePort();
    }
  }
}

export interface WaitOptions {
  /** What we wait for, for the error message. */
  what: string;
  timeoutMs: number;
  /** Give up early when one of these exits: it will never become ready. */
  processes?: ManagedProcess[];
  intervalMs?: number;
}

/** Lines of a dead process's output searched for the cause of its exit. */
const TAIL_FOR_CAUSE = 200;

/**
 * Polls `check` until it returns true. Fails when the time is up (with the last error seen) or
 * when a watched process exits (with its log tail).
 */
export async function waitUntil(check: () => Promise<boolean>, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError = '';
  for (;;) {
    const dead = options.processes?.find((p) => !p.running);
    if (dead) {
      // A crash's trace can push the line that says why (a port taken since it was picked) out of the tail.
      const taken = dead
        .tail(TAIL_FOR_CAUSE)
        .split('\n')
        .find((line) => /address already in use|EADDRINUSE/i.test(line));
      throw new Error(`${options.what}: ${dead.describeExit()}${taken ? ` (${taken})` : ''}\n${dead.tail()}`);
    }
    try {
      if (await check()) return;
    } catch (err) {
      lastError = (err as Error).message;
    }
    if (Date.now() > deadline) {
      throw new Error(`${options.what}: not ready after ${options.timeoutMs / 1000} s${lastError ? ` (last error: ${lastError})` : ''}`);
    }
    await sleep(options.intervalMs ?? 250);
  }
}

/** Waits until `GET url` answers 200. */
export function waitForHttp(url: string, options: WaitOptions): Promise<void> {
  return waitUntil(async () => {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
    return true;
  }, options);
}
