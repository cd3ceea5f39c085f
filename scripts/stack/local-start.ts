//! What `npm start` and `npm run start:cluster` share: the supervisor of the processes they start,
//! stopped on Ctrl-C and on the first failure, and the secrets they keep under `.data/`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { reasonOf, StartError } from './start-error.js';
import { Supervisor } from './supervisor.js';

export interface LocalStart {
  readonly supervisor: Supervisor;
  /** Reports `message`, stops everything and exits 1; once only, and not while a signal stops the start. */
  fail(message: string): Promise<void>;
  /** The start is done: a process that dies from now on is reported with its last lines. */
  markUp(): void;
}

const rel = (p: string) => path.relative(process.cwd(), p) || '.';

/**
 * A supervisor logging to `logDir` that stops everything on signals and when a process dies.
 * With `oneLineWhileStarting`, a process that dies before `markUp()` is reported in one line
 * (the part, why, where its output is: StartError); otherwise always with its last lines.
 */
export function superviseLocalStart(logDir: string, options: { oneLineWhileStarting?: boolean } = {}): LocalStart {
  const supervisor = new Supervisor({ logDir });
  supervisor.stopOnSignals();

  let failed = false;
  async function fail(message: string): Promise<void> {
    // A crash during start-up is reported once, not again by the step waiting on it; after a
    // Ctrl-C the signal handler owns the exit.
    if (failed || supervisor.isStopping) return;
    failed = true;
    console.error(`\n${message}\nstopping...`);
    await supervisor.stopAll();
    process.exit(1);
  }

  let up = false;
  supervisor.onUnexpectedExit((p) => {
    if (options.oneLineWhileStarting && !up) {
      return void fail(
        new StartError(p.name, reasonOf(`${p.describeExit()}\n${p.tail()}`), `see ${p.logFile ? rel(p.logFile) : 'its output above'}`)
          .message,
      );
    }
    void fail(`${p.describeExit()} unexpectedly; its last lines:\n${p.tail()}`);
  });

  return { supervisor, fail, markUp: () => (up = true) };
}

/** A secret kept in `<dir>/<file>`, made on first run (the environment variable wins). */
export function keptSecret(dir: string, envName: string, file: string, make: () => string): string {
  const fromEnv = process.env[envName];
  if (fromEnv) return fromEnv;
  const full = path.join(dir, file);
  if (!existsSync(full)) writeFileSync(full, `${make()}\n`, { mode: 0o600 });
  return readFileSync(full, 'utf8').trim();
}
