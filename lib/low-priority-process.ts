//! A child process at low CPU priority that runs named functions of one module for its parent:
//! work that may wait (password hashing) yields the cores to the work that may not (tool calls).
//! The child leads its own session, so where the kernel groups processes by session for fair
//! scheduling (autogroup), its whole group is lowered, not only its threads within the parent's.
//! It starts on first use, restarts after it dies (what was in flight fails), and keeps the parent
//! alive only while a request is pending. It is given no environment: it needs no secrets. With
//! `maxPending`, a call past that many unanswered ones is refused at once (ProcessBusyError): work
//! that anyone may ask for must not queue without end behind a child that does it one at a time.
import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import os from 'node:os';
import { siblingModule, threadExecArgv } from './thread-pool.js';

/** Niceness of the child: it gets what the service leaves, and still a little when all is busy. */
export const LOW_PRIORITY_NICE = 10;

type Handlers = Record<string, (...args: never[]) => Promise<unknown>>;

interface Request {
  id: number;
  name: string;
  args: unknown[];
}
type Reply = { id: number; value: unknown } | { id: number; error: string };

/** In the child: lowers this process's priority, then answers the parent's requests with `handlers`. */
export async function serveLowPriority(handlers: Handlers): Promise<void> {
  await lowerOwnPriority();
  process.on('message', (request: Request) => {
    const handler = handlers[request.name] as ((...args: unknown[]) => Promise<unknown>) | undefined;
    const reply = (r: Reply) => process.connected && process.send!(r);
    if (!handler) return reply({ id: request.id, error: `no function named ${request.name}` });
    handler(...request.args).then(
      (value) => reply({ id: request.id, value }),
      (err: unknown) => reply({ id: request.id, error: err instanceof Error ? err.message : String(err) }),
    );
  });
  // The parent went away (exited or was killed): nothing is left to answer.
  process.on('disconnect', () => process.exit(0));
}

/**
 * Every thread of this process, including libuv's pool (started here first, so that it exists),
 * at LOW_PRIORITY_NICE; threads started later inherit it. Then the session's scheduling group.
 * Each step is best effort: a system without /proc keeps the main thread's setting only.
 */
async function lowerOwnPriority() {
  await stat('.');
  let threads: string[] = [];
  try {
    threads = readdirSync('/proc/self/task');
  } catch {
    os.setPriority(LOW_PRIORITY_NICE);
  }
  for (const tid of threads) {
    try {
      os.setPriority(Number(tid), LOW_PRIORITY_NICE);
    } catch {
      // The thread ended since the listing.
    }
  }
  try {
    writeFileSync('/proc/self/autogroup', String(LOW_PRIORITY_NICE));
  } catch {
    // No autogroup scheduling here: the threads' niceness is what counts.
  }
}

/** The child already has `maxPending` calls unanswered: this one is refused rather than queued. */
export class ProcessBusyError extends Error {
  constructor(name: string, maxPending: number) {
    super(`${name}: ${maxPending} calls already waiting`);
    this.name = 'ProcessBusyError';
  }
}

export interface LowPriorityProcess {
  call<T>(name: string, ...args: unknown[]): Promise<T>;
  /** The child's process id, while one runs. */
  readonly pid: number | undefined;
  /** Stops the child; the next call starts another. */
  stop(): void;
}

/** The parent's side: calls go to the module `name` beside `callerUrl`, run in the child. */
export function lowPriorityProcess(callerUrl: string, name: string, options: { maxPending?: number } = {}): LowPriorityProcess {
  const maxPending = options.maxPending ?? Number.POSITIVE_INFINITY;
  const filename = siblingModule(callerUrl, name);
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  let child: ChildProcess | undefined;
  let nextId = 0;

  // Both handles: a child that dies closes its channel first, and its exit must still be heard.
  const holdParent = () => {
    if (pending.size) {
      child?.ref();
      child?.channel?.ref();
    } else {
      child?.unref();
      child?.channel?.unref();
    }
  };

  function start(): ChildProcess {
    const started = fork(filename, [], {
      detached: true,
      env: {},
      execArgv: threadExecArgv(filename) ?? [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    started.on('message', (reply: Reply) => {
      const waiter = pending.get(reply.id);
      if (!waiter) return;
      pending.delete(reply.id);
      if ('error' in reply) waiter.reject(new Error(`${name}: ${reply.error}`));
      else waiter.resolve(reply.value);
      holdParent();
    });
    const ended = (why: string) => {
      if (child !== started) return;
      child = undefined;
      for (const waiter of pending.values()) waiter.reject(new Error(`${name}: the process ${why}`));
      pending.clear();
    };
    started.on('exit', (code, signal) => ended(`exited (${signal ?? code})`));
    started.on('error', (err) => ended(`failed: ${err.message}`));
    return started;
  }

  return {
    call<T>(fn: string, ...args: unknown[]): Promise<T> {
      if (pending.size >= maxPending) return Promise.reject(new ProcessBusyError(name, maxPending));
      child ??= start();
      const id = nextId++;
      const reply = new Promise<T>((resolve, reject) => pending.set(id, { resolve: resolve as (v: unknown) => void, reject }));
      holdParent();
      child.send({ id, name: fn, args } satisfies Request);
      return reply;
    },
    get pid() {
      return child?.pid;
    },
    stop() {
      child?.kill();
    },
  };
}
