//! A piscina worker-thread pool for bcrypt, argon2 and long digests, so the cpu worker's event
//! loop (Temporal polling, heartbeats, other activities) keeps running while a hash does.
import { fixedThreadPool } from '../../lib/thread-pool.js';
import type { HashAlgorithm } from '../../domain/tools/hash-text.js';
import type { BcryptHashTask, DigestTask, VerifyTask } from './hashing-thread.js';
import { hexDigest } from './digest.js';

/**
 * Texts up to this many characters are digested on the calling thread: tens of microseconds,
 * less than the hand-over to a pool thread and back costs. Longer ones go to the pool.
 */
export const INLINE_DIGEST_MAX_CHARS = 16 * 1024;

export interface HashingPoolOptions {
  /**
   * Worker threads, each running one hash at a time. The cpu worker passes `CPU_CONCURRENCY`,
   * so every activity it accepts gets a thread instead of waiting in the pool's queue.
   */
  threads: number;
  /** When the threads start: once this settles, or at the first hash that needs one. At once when absent. */
  startAfter?: Promise<unknown>;
}

export interface HashingPool {
  /** bcrypt `$2a$` hash of `password` with a fresh salt. */
  bcryptHash(password: string, workFactor: number, signal?: AbortSignal): Promise<string>;
  bcryptVerify(password: string, hash: string, signal?: AbortSignal): Promise<boolean>;
  argon2Verify(password: string, hash: string, signal?: AbortSignal): Promise<boolean>;
  /** Lowercase hex digest of the UTF-8 bytes of `text`. */
  digest(algorithm: HashAlgorithm, text: string, signal?: AbortSignal): Promise<string>;
  /** Lets running hashes finish, then stops the threads. */
  close(): Promise<void>;
}

export function createHashingPool({ threads, startAfter }: HashingPoolOptions): HashingPool {
  const piscina = fixedThreadPool(import.meta.url, 'hashing-thread', threads, startAfter);

  // An aborted signal (activity cancelled or past its deadline) makes piscina terminate the
  // thread running the task and start a fresh one: a cost-14 bcrypt cannot be stopped otherwise.
  const run = <T, R>(name: string, task: T, signal?: AbortSignal): Promise<R> => piscina.run<R>(task, { name, signal });

  return {
    bcryptHash: (password, workFactor, signal) => run<BcryptHashTask, string>('bcryptHash', { password, costFactor: workFactor }, signal),
    bcryptVerify: (password, hash, signal) => run<VerifyTask, boolean>('bcryptVerify', { password, hash }, signal),
    argon2Verify: (password, hash, signal) => run<VerifyTask, boolean>('argon2Verify', { password, hash }, signal),
    digest: async (algorithm, text, signal) => {
      if (text.length > INLINE_DIGEST_MAX_CHARS) return run<DigestTask, string>('digest', { algorithm, text }, signal);
      signal?.throwIfAborted();
      return hexDigest(algorithm, text);
    },
    close: () => piscina.close(),
  };
}
