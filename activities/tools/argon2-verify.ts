//! argon2-verify: whether the password produces the supplied Argon2 PHC hash, with the variant
//! and cost parameters the hash names.
import { precheck, type Argon2VerifyInput, type Argon2VerifyOutput } from '../../domain/tools/argon2-verify.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { type HashingDeps, hashingHandler } from './hashing-handler.js';

export type Argon2VerifyDeps = HashingDeps<'argon2Verify'>;

export function createArgon2Verify({ hashing }: Argon2VerifyDeps): ToolHandler<Argon2VerifyInput, Argon2VerifyOutput> {
  return hashingHandler(precheck, async ({ password, hash }, signal) => ({ matches: await hashing.argon2Verify(password, hash, signal) }));
}
