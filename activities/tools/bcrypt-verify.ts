//! bcrypt-verify: whether the password produces the supplied hash, at the cost the hash names.
import { precheck, type BcryptVerifyInput, type BcryptVerifyOutput } from '../../domain/tools/bcrypt-verify.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import type { HashingPool } from '../cpu/hashing-pool.js';

export interface BcryptVerifyDeps {
  hashing: Pick<HashingPool, 'bcryptVerify'>;
}

export function createBcryptVerify({ hashing }: BcryptVerifyDeps): ToolHandler<BcryptVerifyInput, BcryptVerifyOutput> {
  return async (input, ctx) => {
    // Again here, not only in the API: the hash decides how long a pool thread is held.
    precheck(input);
    return { matches: await hashing.bcryptVerify(input.password, input.hash, ctx.signal) };
  };
}
