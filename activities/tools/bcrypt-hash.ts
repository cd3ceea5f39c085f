//! bcrypt-hash: a new bcrypt hash of the password, computed in the hashing pool.
import { precheck, type BcryptHashInput, type BcryptHashOutput } from '../../domain/tools/bcrypt-hash.js';
import { precheckedHandler, type ToolHandler } from '../../domain/tools/index.js';
import type { HashingPool } from '../cpu/hashing-pool.js';

export interface BcryptHashDeps {
  hashing: Pick<HashingPool, 'bcryptHash'>;
}

export function createBcryptHash({ hashing }: BcryptHashDeps): ToolHandler<BcryptHashInput, BcryptHashOutput> {
  return precheckedHandler(precheck, async ({ password, workFactor }, signal) => ({
    hash: await hashing.bcryptHash(password, workFactor, signal),
  }));
}
