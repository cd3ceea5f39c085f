//! argon2-verify: whether the password produces the supplied Argon2 PHC hash, with the variant
//! and cost parameters the hash names.
import { precheck, type Argon2VerifyInput, type Argon2VerifyOutput } from '../../domain/tools/argon2-verify.js';
import { precheckedHandler, type ToolHandler } from '../../domain/tools/index.js';
import type { HashingPool } from '../cpu/hashing-pool.js';

export interface Argon2VerifyDeps {
  hashing: Pick<HashingPool, 'argon2Verify'>;
}

export function createArgon2Verify({ hashing }: Argon2VerifyDeps): ToolHandler<Argon2VerifyInput, Argon2VerifyOutput> {
  return precheckedHandler(precheck, async ({ password, hash }, signal) => ({
    matches: await hashing.argon2Verify(password, hash, signal),
  }));
}
