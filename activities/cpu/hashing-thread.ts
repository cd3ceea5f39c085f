//! Runs inside a piscina worker thread: the hashing tasks themselves. hash-wasm runs on the
//! thread that calls it and holds that thread for the whole hash, so these functions are only
//! ever called through `hashing-pool.ts`, never on the worker's main thread.
//! Each export is a piscina task: one plain, structured-cloneable argument, one result.
import { randomBytes } from 'node:crypto';
import { argon2Verify as wasmArgon2Verify, bcrypt, bcryptVerify as wasmBcryptVerify } from 'hash-wasm';
import type { HashAlgorithm } from '../../domain/tools/hash-text.js';
import { hexDigest } from './digest.js';

export interface BcryptHashTask {
  password: string;
  costFactor: number;
}

export interface VerifyTask {
  password: string;
  hash: string;
}

export interface DigestTask {
  algorithm: HashAlgorithm;
  text: string;
}

/** bcrypt with a fresh 16-byte salt; hash-wasm encodes the result as `$2a$`. */
export async function bcryptHash({ password, costFactor }: BcryptHashTask): Promise<string> {
  return bcrypt({ password, salt: randomBytes(16), costFactor, outputType: 'encoded' });
}

export async function bcryptVerify({ password, hash }: VerifyTask): Promise<boolean> {
  return wasmBcryptVerify({ password, hash });
}

/** Reads variant and cost parameters from the PHC string itself. */
export async function argon2Verify({ password, hash }: VerifyTask): Promise<boolean> {
  return wasmArgon2Verify({ password, hash });
}

/** A long text's digest, off the worker's event loop (see hashing-pool.ts for short ones). */
export async function digest({ algorithm, text }: DigestTask): Promise<string> {
  return hexDigest(algorithm, text);
}
