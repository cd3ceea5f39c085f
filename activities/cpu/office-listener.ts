//! One warm LibreOffice listener: a process group running office-bridge.py, which starts soffice
//! with its own profile and drives it over a persistent UNO connection; this side talks to the
//! bridge over its stdin/stdout, one JSON line per message. One conversion at a time.
//!
//! Network: with `isolation: 'namespace'` the group runs in fresh network and PID namespaces
//! (`unshare --net --pid`): LibreOffice has only a loopback interface that is down, so a document
//! that links remote images, fonts or OLE objects cannot make it fetch anything (not even a DNS
//! query), and when the bridge dies the kernel ends everything else in the namespace with it.
//! `kill()` takes down the whole process group with SIGKILL, which also ends a stopped or hung
//! soffice.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../lib/logger.js';

export type OfficeIsolation = 'namespace' | 'none';

export interface OfficeListenerOptions {
  /** This listener's LibreOffice profile folder (`-env:UserInstallation`); never shared. */
  profileDir: string;
  /** Name of the UNO pipe between the bridge and soffice; unique per listener start. */
  pipeName: string;
  /** @default 'namespace' */
  isolation?: OfficeIsolation;
  /** Debian's python3-uno works with this interpreter only. @default '/usr/bin/python3' */
  python?: string;
  /** @default '/usr/bin/soffice' */
  soffice?: string;
  /** Start (soffice up, connected, one warm-up conversion) must finish within this. @default 60000 */
  startTimeoutMs?: number;
  log?: Logger;
}

export interface ConversionRequest {
  /** Absolute path of the document. */
  input: string;
  /** Absolute path the PDF is written to. */
  output: string;
  /** LibreOffice import filter, chosen from the sniffed type (never LibreOffice's own guess). */
  filter: string;
}

/** The conversion did not answer within its time: the listener was killed. */
export class ConversionTimeoutError extends Error {
  override readonly name = 'ConversionTimeoutError';
}
/** LibreOffice could not open the document with the given filter (damaged, encrypted, not that type). */
export class DocumentLoadError extends Error {
  override readonly name = 'DocumentLoadError';
}
/** The listener's process ended (crash, kill) before answering. */
export class ListenerExitedError extends Error {
  override readonly name = 'ListenerExitedError';
}

export interface OfficeListener {
  /** Process group id (the spawned process's pid): what `kill()` signals. */
  readonly pid: number;
  /** Resolves once soffice is up, connected and warmed up; rejects if it fails to get there. */
  readonly ready: Promise<{ startMs: number }>;
  /** Resolves when the process has exited, however. */
  readonly exited: Promise<void>;
  /** Converts one document; rejects with one of the errors above, or an Error for an export failure. */
  convert(request: ConversionRequest, timeoutMs: number): Promise<{ ms: number }>;
  /** SIGKILL to the whole process group. Idempotent. */
  kill(): void;
  /** Asks soffice to shut down cleanly (it then removes its /tmp pipes); kills it after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** The bridge script: beside this module when run from source; from the source tree under dist/. */
export function bridgeScriptPath(moduleUrl: string = import.meta.url): string {
  const candidates = ['./office-bridge.py', '../../../activities/cpu/office-bridge.py'].map((p) => fileURLToPath(new URL(p, moduleUrl)));
  return candidates.find((p) => existsSync(p)) ?? candidates[0]!;
}

/**
 * The command line of a listener. In a namespace: `--fork` so the bridge is PID 1 of the new PID
 * namespace (everything in it dies with it), `--kill-child` so it dies with unshare; a non-root
 * user maps itself to root in a new user namespace to be allowed to create the others.
 */
export function listenerCommand(options: {
  isolation: OfficeIsolation;
  python: string;
  script: string;
  profileDir: string;
  pipeName: string;
  soffice: string;
  isRoot: boolean;
}): [string, ...string[]] {
  const bridge = [
    options.python,
    options.script,
    '--profile',
    options.profileDir,
    '--pipe',
    options.pipeName,
    '--soffice',
    options.soffice,
  ];
  if (options.isolation === 'none') return bridge as [string, ...string[]];
  const userNamespace = options.isRoot ? [] : ['--map-root-user'];
  return ['unshare', ...userNamespace, '--net', '--pid', '--fork', '--kill-child', '--', ...bridge];
}

interface Answer {
  id: string;
  ok: boolean;
  kind?: 'load' | 'export';
  error?: string;
  ms?: number;
}

/** Last lines of stderr, kept for the error a failed start reports. */
function tail(lines: string[], line: string, keep = 20) {
  lines.push(line);
  if (lines.length > keep) lines.shift();
}

/**
 * Where soffice creates the Unix socket of `--accept=pipe,name=<name>`: /tmp/OSL_PIPE_<uid>_<name>,
 * with the uid soffice runs as (root inside the namespace's user mapping).
 */
export function pipeSocketPath(pipeName: string, isolation: OfficeIsolation, uid = process.getuid?.() ?? 0): string {
  return path.join('/tmp', `OSL_PIPE_${isolation === 'namespace' ? 0 : uid}_${pipeName}`);
}

/** What a running listener's conversation and its exit share. */
interface Bridge {
  readonly child: ChildProcessWithoutNullStreams;
  /** Why the process ended, once it has. */
  exitedWith?: string;
  /** The conversion waiting for its answer. */
  pending?: { id: string; resolve: (a: Answer) => void; reject: (e: Error) => void };
  nextId: number;
  /** SIGKILL to the group unless it has exited. */
  kill(): void;
}

/** Sends one document to the bridge and waits for its answer, killing the listener at `timeoutMs`. */
async function convertOn(bridge: Bridge, request: ConversionRequest, timeoutMs: number): Promise<{ ms: number }> {
  if (bridge.exitedWith !== undefined) throw new ListenerExitedError(`the office listener has exited (${bridge.exitedWith})`);
  if (bridge.pending) throw new Error('the office listener is already converting a document');
  const id = String(bridge.nextId++);
  const answer = new Promise<Answer>((resolve, reject) => {
    bridge.pending = { id, resolve, reject };
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      bridge.pending = undefined;
      bridge.kill(); // the only way to stop a conversion LibreOffice is stuck in
      reject(new ConversionTimeoutError(`the conversion did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    bridge.child.stdin.write(`${JSON.stringify({ id, ...request })}\n`);
    const result = await Promise.race([answer, timeout]);
    if (result.ok) return { ms: result.ms ?? 0 };
    if (result.kind === 'load') throw new DocumentLoadError(result.error ?? 'the document could not be loaded');
    throw new Error(`LibreOffice could not export the PDF: ${result.error}`);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads the bridge's stdout: its ready event, and the answer to the pending conversion. */
function readAnswers(bridge: Bridge, onReady: (startMs: number) => void, options: OfficeListenerOptions): void {
  createInterface({ input: bridge.child.stdout }).on('line', (line) => {
    let message: Answer & { event?: string; startMs?: number };
    try {
      message = JSON.parse(line);
    } catch {
      options.log?.warn({ listener: options.pipeName, line }, 'office bridge wrote a line that is not JSON');
      return;
    }
    if (message.event === 'ready') {
      onReady(message.startMs ?? 0);
    } else if (bridge.pending && message.id === bridge.pending.id) {
      const { resolve } = bridge.pending;
      bridge.pending = undefined;
      resolve(message);
    }
  });
}

/** Where one start of a listener has LibreOffice keep its temporary files (`TMPDIR`). */
export function listenerTempDir(options: Pick<OfficeListenerOptions, 'profileDir' | 'pipeName'>): string {
  return path.join(options.profileDir, `tmp-${options.pipeName}`);
}

export function startOfficeListener(options: OfficeListenerOptions): OfficeListener {
  const isolation = options.isolation ?? 'namespace';
  const command = listenerCommand({
    isolation,
    python: options.python ?? '/usr/bin/python3',
    script: bridgeScriptPath(),
    profileDir: options.profileDir,
    pipeName: options.pipeName,
    soffice: options.soffice ?? '/usr/bin/soffice',
    isRoot: process.getuid?.() === 0,
  });
  const log = options.log;
  // LibreOffice's own temporary files (a document's unpacked parts: gigabytes for a zip bomb) go in
  // a folder of this start's, removed once it is gone: a killed soffice leaves them behind, and a
  // container's /tmp is memory.
  const tempDir = listenerTempDir(options);
  mkdirSync(tempDir, { recursive: true });
  // detached: its own process group, so kill() reaches soffice and everything it started.
  const child: ChildProcessWithoutNullStreams = spawn(command[0], command.slice(1), {
    stdio: 'pipe',
    detached: true,
    env: { ...process.env, TMPDIR: tempDir },
  });
  const stderr: string[] = [];

  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const bridge: Bridge = {
    child,
    nextId: 1,
    kill: () => {
      if (bridge.exitedWith === undefined) killGroup();
    },
  };
  const kill = bridge.kill;

  let markReady!: (value: { startMs: number }) => void;
  let failStart!: (err: Error) => void;
  const ready = new Promise<{ startMs: number }>((resolve, reject) => {
    markReady = resolve;
    failStart = reject;
  });
  ready.catch(() => {}); // callers that never await ready must not see an unhandled rejection
  const startTimer = setTimeout(() => {
    failStart(new Error(`the office listener did not start within ${options.startTimeoutMs ?? 60_000} ms`));
    kill();
  }, options.startTimeoutMs ?? 60_000);

  createInterface({ input: child.stderr }).on('line', (line) => {
    tail(stderr, line);
    log?.debug({ listener: options.pipeName }, `soffice: ${line}`);
  });
  readAnswers(
    bridge,
    (startMs) => {
      clearTimeout(startTimer);
      markReady({ startMs });
    },
    options,
  );

  const exited = new Promise<void>((resolve) => {
    const onGone = (why: string) => {
      if (bridge.exitedWith !== undefined) return;
      bridge.exitedWith = why;
      clearTimeout(startTimer);
      const detail = stderr
        .filter((l) => !/javaldx/.test(l))
        .slice(-5)
        .join(' | ');
      failStart(new ListenerExitedError(`the office listener exited (${why}) before it was ready${detail ? `: ${detail}` : ''}`));
      bridge.pending?.reject(new ListenerExitedError(`the office listener exited (${why}) during the conversion`));
      bridge.pending = undefined;
      // soffice removes its pipe's socket file only when it shuts down cleanly; a killed one
      // leaves it in /tmp, one per listener start.
      rm(pipeSocketPath(options.pipeName, isolation), { force: true }).catch(() => {});
      // Every process of the group is gone (killGroup on exit): nothing writes there any more.
      rm(tempDir, { recursive: true, force: true }).then(resolve, resolve);
    };
    let exitReason: string | undefined;
    child.once('exit', (code, signal) => {
      exitReason = signal ? `signal ${signal}` : `code ${code}`;
      killGroup(); // whatever the bridge left behind (soffice, without a namespace) goes with it
    });
    // 'close' comes after the exit once stderr is drained, so the reason below has its last lines.
    child.once('close', () => onGone(exitReason ?? 'closed'));
    child.once('error', (err) => onGone(err.message)); // could not be spawned at all
  });
  child.stdin.on('error', () => {}); // EPIPE after an exit is reported through 'exit'

  async function stop(graceMs = 3_000): Promise<void> {
    if (bridge.exitedWith !== undefined) return;
    child.stdin.end(); // the bridge terminates soffice when its input ends
    const timer = setTimeout(kill, graceMs);
    await exited;
    clearTimeout(timer);
  }

  return { pid: child.pid ?? -1, ready, exited, convert: (request, timeoutMs) => convertOn(bridge, request, timeoutMs), kill, stop };
}
