//! hash-text: a hex digest of the text (a short one on the spot, a long one in the hashing pool).
import { precheck, type HashTextInput, type HashTextOutput } from '../../domain/tools/hash-text.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import type { HashingPool } from '../cpu/hashing-pool.js';

export interface HashTextDeps {
  hashing: Pick<HashingPool, 'digest'>;
}

export function createHashText({ hashing }: HashTextDeps): ToolHandler<HashTextInput, HashTextOutput> {
  return async (input, ctx) => {
    precheck(input);
    const hash = await hashing.digest(input.algorithm, input.text, ctx.signal);
    return { algorithm: input.algorithm, hash };
  };
}
