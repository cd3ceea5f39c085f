//! hash-text: a hex digest of the text (a short one on the spot, a long one in the hashing pool).
import { precheck, type HashTextInput, type HashTextOutput } from '../../domain/tools/hash-text.js';
import { precheckedHandler, type ToolHandler } from '../../domain/tools/index.js';
import type { HashingPool } from '../cpu/hashing-pool.js';

export interface HashTextDeps {
  hashing: Pick<HashingPool, 'digest'>;
}

export function createHashText({ hashing }: HashTextDeps): ToolHandler<HashTextInput, HashTextOutput> {
  return precheckedHandler(precheck, async ({ algorithm, text }, signal) => ({
    algorithm,
    hash: await hashing.digest(algorithm, text, signal),
  }));
}
