//! bcrypt-verify: whether the password produces the supplied hash, at the cost the hash names.
import { precheck, type BcryptVerifyInput, type BcryptVerifyOutput } from '../../domain/tools/bcrypt-verify.js';
import { precheckedHandler, type ToolHandler } from '../../domain/tools/index.js';
import type { HashingPool } from '../cpu/hashing-pool.js';

export interface BcryptVerifyDeps {
  hashing: Pick<HashingPool, 'bcryptVerify'>;
}

export function createBcryptVerify({ hashing }: BcryptVerifyDeps): ToolHandler<BcryptVerifyInput, BcryptVerifyOutput> {
  return precheckedHandler(precheck, async ({ password, hash }, signal) => ({
    matches: await hashing.bcryptVerify(password, hash, signal),
  }));
}
