//! bcrypt-verify: whether the password produces the supplied hash, at the cost the hash names.
import { precheck, type BcryptVerifyInput, type BcryptVerifyOutput } from '../../domain/tools/bcrypt-verify.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { type HashingDeps, hashingHandler } from './hashing-handler.js';

export type BcryptVerifyDeps = HashingDeps<'bcryptVerify'>;

export function createBcryptVerify({ hashing }: BcryptVerifyDeps): ToolHandler<BcryptVerifyInput, BcryptVerifyOutput> {
  return hashingHandler(precheck, async ({ password, hash }, signal) => ({ matches: await hashing.bcryptVerify(password, hash, signal) }));
}
