//! How the hashing tools' handlers are made: the input checked again, then the hashing pool's
//! answer. The check runs here as well as in the API because the input (a work factor, the cost a
//! supplied hash names, the length of a text) decides how long a pool thread is held and, for
//! Argon2, how much memory it takes.
import type { ToolHandler } from '../../domain/tools/index.js';
import type { HashingPool } from '../cpu/hashing-pool.js';

/** What a hashing tool's handler needs: the pool's operations it uses. */
export interface HashingDeps<K extends keyof HashingPool> {
  hashing: Pick<HashingPool, K>;
}

/** A handler that runs `precheck` on its input, then answers with `compute`, given the call's signal. */
export function hashingHandler<I, O>(
  precheck: (input: I) => void,
  compute: (input: I, signal: AbortSignal) => Promise<O>,
): ToolHandler<I, O> {
  return async (input, ctx) => {
    precheck(input);
    return compute(input, ctx.signal);
  };
}
