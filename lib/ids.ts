//! Random identifiers and credentials.
import { createHash, randomBytes, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 string (rejection-free: randomInt is unbiased). */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

/** `<prefix>_<22 base62 chars>`: about 131 bits, plenty for unguessable ids. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(22)}`;
}

export function sha256Hex(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * `<prefix>_<22 base62 chars>` derived from `seed`: the same seed always gives the same id, so a
 * retried step that records something under it records it once.
 */
export function derivedId(prefix: string, seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  let out = '';
  for (let i = 0; i < 22; i++) out += BASE62[digest[i]! % 62];
  return `${prefix}_${out}`;
}
