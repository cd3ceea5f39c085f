//! Runs the local stack's processes: each in its own process group (so whatever it spawns, such as
//! LibreOffice, goes down with it), output prefixed on the console and/or written to a log file,
//! and everything stopped on stopAll(), on SIGINT/SIGTERM/SIGHUP and, as a last resort, on exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ProcessSpec {
  /** Short name: the console prefix and the log file name (`<name>.log`). */
  name: string;
  command: string;
  args: string[];
  /** The whole environment of the process (callers merge `process.env` themselves). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Echo output lines to our stdout as `name | line`. Default: the supervisor's `echo`. */
  echo?: boolean;
  /** How an echoed line is shown (`npm start`: log lines made readable); the log file keeps it as written. */
  echoFormat?: (line: string) => string;
  /**
   * Stop order: higher layers stop first and are waited for, so app processes drain while
   * Temporal and the database are still up. Default 1 (apps); use 0 for infrastructure.
   */
  layer?: number;
  /** Grace period between the stop signal and SIGKILL. Default 15 s (workers drain their activities). */
  stopTimeoutMs?: number;
  /** The signal that asks it to stop. Default SIGTERM (PostgreSQL: SIGINT, its fast shutdown). */
  stopSignal?: NodeJS.Signals;
  /** Run as this user (uid, gid) when we are root: PostgreSQL refuses to run as root. */
  user?: { uid: number; gid: number };
  /** A command expected to finish (tsc, ava): its exit is not reported as unexpected. */
  oneShot?: boolean;
  /** Output passed through to our stdout/stderr as it comes, unprefixed and not logged (ava's report). */
  passthrough?: boolean;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const TAIL_LINES = 200;

export class ManagedProcess {
  readonly exited: Promise<ExitInfo>;
  exitInfo?: ExitInfo;
  /** Set once stop() was asked for: an exit after that is expected. */
  stopping = false;
  private readonly lines: string[] = [];
  private readonly lineListeners: Array<(line: string) => void> = [];
  /** Resolves once the process group is empty; after that it is never signalled again (its id may be reused). */
  private readonly reaped: Promise<void>;
  private groupGone = false;

  constructor(
    readonly spec: ProcessSpec,
    readonly child: ChildProcess,
    readonly logFile: string | undefined,
  ) {
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        // Resolve once the output is read too ('close'), unless something the process spawned
        // keeps the pipes open: then a second is enough for tail() to have the last lines.
        const done = () => {
          this.exitInfo ??= { code, signal };
          resolve(this.exitInfo);
        };
        child.once('close', done);
        setTimeout(done, 1000).unref();
      });
      // A command that cannot be spawned at all emits 'error' and never 'exit'.
      child.on('error', (err) => {
        this.record(`failed to start: ${err.message}`);
        this.exitInfo = { code: 127, signal: null };
        resolve(this.exitInfo);
      });
    });
    this.reaped = this.exited.then(() => this.reapGroup());
  }

  /** What the leader left in its group (same group: its children) gets 2 s, then SIGKILL: no orphans. */
  private async reapGroup(): Promise<void> {
    for (let i = 0; i < 20 && this.signalGroup(0); i++) await sleep(100);
    this.signalGroup('SIGKILL');
    this.groupGone = true;
  }

  get name(): string {
    return this.spec.name;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitInfo === undefined;
  }

  /** Remembers the line for tail() and hands it to onLine() listeners. */
  record(line: string): void {
    this.lines.push(line);
    if (this.lines.length > TAIL_LINES) this.lines.shift();
    for (const listener of this.lineListeners) listener(line);
  }

  /** Calls `listener` with every later line of output (stdout and stderr). */
  onLine(listener: (line: string) => void): () => void {
    this.lineListeners.push(listener);
    return () => this.lineListeners.splice(this.lineListeners.indexOf(listener), 1);
  }

  /** The last lines of output, for error messages. */
  tail(count = 40): string {
    return this.lines.slice(-count).join('\n');
  }

  describeExit(): string {
    const info = this.exitInfo;
    if (!info) return `${this.name} is running`;
    return `${this.name} exited with ${info.signal ? `signal ${info.signal}` : `code ${info.code}`}`;
  }

  /** Sends a signal to the whole process group; false when nothing was left to signal. */
  signalGroup(signal: NodeJS.Signals | 0): boolean {
    if (this.child.pid === undefined || this.groupGone) return false;
    try {
      process.kill(-this.child.pid, signal);
      return true;
    } catch {
      return false; // ESRCH: the group is gone
    }
  }

  /** SIGKILL to the group at once, as a crash would; not reported as an unexpected exit. */
  async kill(): Promise<void> {
    this.stopping = true;
    this.signalGroup('SIGKILL');
    await this.reaped;
  }

  /** The stop signal to the group, SIGKILL after the grace period; resolves when the whole group is gone. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.running) {
      this.signalGroup(this.spec.stopSignal ?? 'SIGTERM');
      const timeout = this.spec.stopTimeoutMs ?? 15_000;
      // Unref'd: a grace period that was not needed must not keep the caller's process alive for it.
      const ended = await Promise.race([this.exited.then(() => true), sleep(timeout, undefined, { ref: false }).then(() => false)]);
      if (!ended) {
        this.record(`did not stop within ${timeout} ms; killing`);
        this.signalGroup('SIGKILL');
      }
    }
    await this.reaped;
  }
}

export interface SupervisorOptions {
  /** Directory for `<name>.log` files; no files when unset. */
  logDir?: string;
  /** Default for ProcessSpec.echo. */
  echo?: boolean;
}

export class Supervisor {
  readonly processes: ManagedProcess[] = [];
  private stopping?: Promise<void>;
  private readonly exitListeners: Array<(p: ManagedProcess) => void> = [];
  private readonly afterStop: Array<() => void> = [];
  private readonly logStreams: WriteStream[] = [];
  private readonly logged = new Set<string>();
  private readonly prefixWidth = 8;

  constructor(readonly options: SupervisorOptions = {}) {
    if (options.logDir) mkdirSync(options.logDir, { recursive: true });
    // Last resort (an uncaught error, process.exit): never leave a process group behind.
    process.on('exit', () => {
      for (const p of this.processes) p.signalGroup('SIGKILL');
    });
  }

  /** True once stopAll() has begun (a signal, or the end of the run). */
  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  /** Called when a process exits that nobody asked to stop. */
  onUnexpectedExit(listener: (p: ManagedProcess) => void): void {
    this.exitListeners.push(listener);
  }

  /** Runs `fn` once stopAll() has stopped every process: deleting a throwaway run's data. */
  afterStopAll(fn: () => void): void {
    this.afterStop.push(fn);
  }

  start(spec: ProcessSpec): ManagedProcess {
    if (this.stopping !== undefined) throw new Error(`not starting ${spec.name}: the stack is stopping`);
    // detached: the child leads a new process group, so we can signal it and all it spawns, and
    // a Ctrl-C in the terminal reaches only us: we stop the processes in order.
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env ?? process.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...spec.user,
    });
    const logFile = this.options.logDir && !spec.passthrough ? path.join(this.options.logDir, `${spec.name}.log`) : undefined;
    const managed = new ManagedProcess(spec, child, logFile);
    this.processes.push(managed);

    // A restarted process (chaos, the control endpoint) appends: the log of the one that died is
    // what explains the fault. Only a name's first start begins a fresh file.
    const file = logFile ? createWriteStream(logFile, { flags: this.logged.has(logFile) ? 'a' : 'w' }) : undefined;
    if (file) {
      this.logged.add(logFile!);
      this.logStreams.push(file);
    }
    const echo = spec.echo ?? this.options.echo ?? false;
    const prefix = `${spec.name.padEnd(this.prefixWidth)} |`;
    if (spec.passthrough) {
      child.stdout?.on('data', (chunk: Buffer) => process.stdout.write(chunk));
      child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    }
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        managed.record(line);
        file?.write(`${line}\n`);
        if (!echo || spec.passthrough) return;
        const shown = spec.echoFormat ? spec.echoFormat(line) : line;
        for (const part of shown.split('\n')) process.stdout.write(`${prefix} ${part}\n`);
      });
    }

    void managed.exited.then(() => {
      if (managed.stopping || this.stopping || spec.oneShot) return;
      for (const listener of this.exitListeners) listener(managed);
    });
    return managed;
  }

  /** Stops every process, highest layer first; idempotent. */
  stopAll(): Promise<void> {
    this.stopping ??= (async () => {
      const layers = [...new Set(this.processes.map((p) => p.spec.layer ?? 1))].sort((a, b) => b - a);
      for (const layer of layers) {
        await Promise.all(this.processes.filter((p) => (p.spec.layer ?? 1) === layer).map((p) => p.stop()));
      }
      await Promise.all(this.logStreams.map((s) => new Promise((resolve) => s.end(resolve))));
      for (const fn of this.afterStop) {
        try {
          fn();
        } catch (err) {
          console.error(`after stopping the stack: ${(err as Error).message}`);
        }
      }
    })();
    return this.stopping;
  }

  /** Kills every process group at once, without grace: the second Ctrl-C. */
  killAll(): void {
    for (const p of this.processes) p.signalGroup('SIGKILL');
  }

  /**
   * First SIGINT/SIGTERM/SIGHUP: stop everything in order, then exit 128+signal. A second one
   * while stopping: kill everything now.
   */
  stopOnSignals(log: (line: string) => void = (line) => console.error(line)): void {
    let received = 0;
    const handler = (signal: NodeJS.Signals, why = `${signal} received`) => {
      received++;
      if (received > 1) {
        log('stopping now (killing every process)');
        this.killAll();
        process.exit(130);
      }
      log(`${why}: stopping (press Ctrl-C again to kill)`);
      const code = 128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as Record<string, number>)[signal];
      void this.stopAll().finally(() => process.exit(code));
    };
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => handler(signal));
    // `npm start` runs us under `sh -c`; a SIGTERM to npm kills that shell without passing the
    // signal on. A changed parent means whoever ran us is gone: stop as if hung up.
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent && received === 0) handler('SIGHUP', 'the parent process is gone');
    }, 1000).unref();
  }
}
