//! A plain digest of text: node:crypto (OpenSSL's native code) rather than hash-wasm, several times
//! faster and with no WebAssembly instance per call.
import { createHash } from 'node:crypto';
import type { HashAlgorithm } from '../../domain/tools/hash-text.js';

/** Lowercase hex digest of the UTF-8 bytes of `text`. */
export function hexDigest(algorithm: HashAlgorithm, text: string): string {
  return createHash(algorithm).update(text, 'utf8').digest('hex');
}
