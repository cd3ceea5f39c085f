//! A piscina worker-thread pool for every bcrypt, argon2 and digest call, so the cpu worker's
//! event loop (Temporal polling, heartbeats, other activities) keeps running while a hash does.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { BcryptHashTask, DigestAlgorithm, DigestTask, VerifyTask } from './hashing-thread.js';

export interface HashingPoolOptions {
  /**
   * Worker threads, each running one hash at a time. The cpu worker passes `CPU_CONCURRENCY`,
   * so every activity it accepts gets a thread instead of waiting in the pool's queue.
   */
  threads: number;
}

export interface HashingPool {
  /** bcrypt `$2a$` hash of `password` with a fresh salt. */
  bcryptHash(password: string, workFactor: number, signal?: AbortSignal): Promise<string>;
  bcryptVerify(password: string, hash: string, signal?: AbortSignal): Promise<boolean>;
  argon2Verify(password: string, hash: string, signal?: AbortSignal): Promise<boolean>;
  /** Lowercase hex digest of the UTF-8 bytes of `text`. */
  digest(algorithm: DigestAlgorithm, text: string, signal?: AbortSignal): Promise<string>;
  /** Lets running hashes finish, then stops the threads. */
  close(): Promise<void>;
}

/**
 * The thread module next to this one, with this file's own extension: `.ts` when run from source
 * under tsx, `.js` from the tsc build in dist/.
 */
export function threadFilename(moduleUrl: string = import.meta.url): string {
  const ext = extname(fileURLToPath(moduleUrl));
  return fileURLToPath(new URL(`./hashing-thread${ext}`, moduleUrl));
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

export function createHashingPool({ threads }: HashingPoolOptions): HashingPool {
  if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`threads must be a positive integer, got ${threads}`);
  const filename = threadFilename();
  const piscina = new Piscina({
    filename,
    execArgv: threadExecArgv(filename),
    // A fixed-size pool: threads are started once and kept, so no call pays a thread start-up.
    minThreads: threads,
    maxThreads: threads,
  });

  // An aborted signal (activity cancelled or past its deadline) makes piscina terminate the
  // thread running the task and start a fresh one: a cost-14 bcrypt cannot be stopped otherwise.
  const run = <T, R>(name: string, task: T, signal?: AbortSignal): Promise<R> => piscina.run(task, { name, signal });

  return {
    bcryptHash: (password, workFactor, signal) =>
      run<BcryptHashTask, string>('bcryptHash', { password, costFactor: workFactor }, signal),
    bcryptVerify: (password, hash, signal) => run<VerifyTask, boolean>('bcryptVerify', { password, hash }, signal),
    argon2Verify: (password, hash, signal) => run<VerifyTask, boolean>('argon2Verify', { password, hash }, signal),
    digest: (algorithm, text, signal) => run<DigestTask, string>('digest', { algorithm, text }, signal),
    close: () => piscina.close(),
  };
}
