//! The cpu pool's tools, keyed by tool name. The worker (workers/pools.ts) owns the hashing
//! pool's lifetime: it creates it with CPU_CONCURRENCY threads and closes it on shutdown.
import type { ToolHandler } from '../../lib/tool-handler.js';
import { createArgon2Verify } from './argon2-verify.js';
import { createBcryptHash } from './bcrypt-hash.js';
import { createBcryptVerify } from './bcrypt-verify.js';
import { createHashText } from './hash-text.js';
import type { HashingPool } from './hashing-pool.js';
import { createQrGenerate } from './qr-generate.js';

export { createHashingPool, type HashingPool, type HashingPoolOptions } from './hashing-pool.js';

export interface CpuToolDeps {
  hashing: HashingPool;
}

export function createCpuTools({ hashing }: CpuToolDeps): Record<string, ToolHandler> {
  return {
    'hash-text': createHashText({ hashing }),
    'bcrypt-hash': createBcryptHash({ hashing }),
    'bcrypt-verify': createBcryptVerify({ hashing }),
    'argon2-verify': createArgon2Verify({ hashing }),
    'qr-generate': createQrGenerate(),
  };
}
