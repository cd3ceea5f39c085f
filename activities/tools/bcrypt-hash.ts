//! bcrypt-hash: a new bcrypt hash of the password, computed in the hashing pool.
import { precheck, type BcryptHashInput, type BcryptHashOutput } from '../../domain/tools/bcrypt-hash.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { type HashingDeps, hashingHandler } from './hashing-handler.js';

export type BcryptHashDeps = HashingDeps<'bcryptHash'>;

export function createBcryptHash({ hashing }: BcryptHashDeps): ToolHandler<BcryptHashInput, BcryptHashOutput> {
  return hashingHandler(precheck, async ({ password, workFactor }, signal) => ({
    hash: await hashing.bcryptHash(password, workFactor, signal),
  }));
}
