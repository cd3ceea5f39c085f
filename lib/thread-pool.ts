//! Fixed-size piscina pools of worker threads, for work that would otherwise stall a worker's
//! event loop (Temporal polling, heartbeats, the other activities): hashing, images, page parsing.
//! The thread module sits beside the module that makes the pool and runs from source (tsx) as
//! well as from the tsc build.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { startedOnce } from './started-once.js';

/**
 * The module `name` next to `callerUrl` (the caller's `import.meta.url`), with the caller's own
 * extension: `.ts` when run from source under tsx, `.js` from the build in dist/.
 */
export function siblingModule(callerUrl: string, name: string): string {
  const ext = extname(fileURLToPath(callerUrl));
  return fileURLToPath(new URL(`./${name}${ext}`, callerUrl));
}

/**
 * Worker threads need tsx's loader to import a `.ts` thread file, and `--import tsx` inherited
 * from the main thread does not give it to them: tsx registers its hooks on the main thread only
 * (on Node 20, and 22 before 22.22.3). So under tsx the threads preload a one-line module that
 * registers tsx themselves. The list replaces the inherited execArgv rather than extending it:
 * that avoids a second tsx registration on Node versions where tsx does reach workers, and
 * process-wide flags (heap sizes) that a Worker refuses. A build (.js) inherits as usual.
 */
export function threadExecArgv(filename: string): string[] | undefined {
  if (!filename.endsWith('.ts')) return undefined;
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import { register } from ${JSON.stringify(tsxApi)}; register();`;
  return ['--import', `data:text/javascript,${encodeURIComponent(bootstrap)}`];
}

/** The part of a piscina pool the tools use. */
export interface ThreadPool {
  run<R = unknown>(task: unknown, options: { name: string; signal?: AbortSignal }): Promise<R>;
  /** Lets running tasks finish, then stops the threads (none were started: nothing to stop). */
  close(): Promise<void>;
}

/**
 * A pool of exactly `threads` threads running the module `name` beside `callerUrl`. Fixed size:
 * threads start (and load what they hold: fonts, models, parsers) once, so no call pays for it.
 * They start when `startAfter` settles or at the first task, whichever comes first (at once
 * without it): a worker process polls sooner when its threads load after (workers/run.ts).
 * A task run with an aborted signal has its thread terminated and replaced, which is the only
 * way to stop a long synchronous task.
 */
export function fixedThreadPool(callerUrl: string, name: string, threads: number, startAfter?: Promise<unknown>): ThreadPool {
  if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`${name}: threads must be a positive integer, got ${threads}`);
  const filename = siblingModule(callerUrl, name);
  const piscina = startedOnce(
    () => new Piscina({ filename, execArgv: threadExecArgv(filename), minThreads: threads, maxThreads: threads }),
    startAfter,
  );
  return {
    run: (task, options) => piscina.get().run(task, options),
    close: async () => {
      await piscina.stop()?.close();
    },
  };
}
