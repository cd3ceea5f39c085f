//! Passwords are kept only as Argon2id hashes (RFC 9106; OWASP's parameters: 19 MiB, 2 passes, 1
//! lane). Hashing runs through the native `argon2` binding in a child process at low CPU priority
//! (password-hashing-process.ts), never on the API's event loop nor at the calls' priority, and at
//! most HASHES_AT_ONCE at a time, so a wave of sign-ins queues for the hash instead of taking the
//! cores from the calls beside it. A sign-in for an unknown address verifies against a hash of
//! nothing, so it costs the same time as one for a known address.
import argon2 from 'argon2';
import { randomBytes } from 'node:crypto';
import { normalizePassword } from './password-policy.js';
import { lowPriorityProcess } from '../../lib/low-priority-process.js';

/** Stated in docs/OPERATING.md with what one verification costs (bench/identity.ts measures it). */
export const ARGON2_PARAMETERS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Hashes running at once for this process; the rest wait their turn. */
const HASHES_AT_ONCE = 2;

const hasher = lowPriorityProcess(import.meta.url, 'password-hashing-process');
const hash = (password: string) => hasher.call<string>('hash', password, ARGON2_PARAMETERS);

let running = 0;
const waiting: (() => void)[] = [];

async function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  if (running >= HASHES_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** The PHC string of `password` (NFKC) with a fresh salt. */
export const hashPassword = (password: string) => oneAtATime(() => hash(normalizePassword(password)));

let decoy: Promise<string> | undefined;

function decoyHash(): Promise<string> {
  decoy ??= hash(randomBytes(32).toString('base64')).catch((err: unknown) => {
    decoy = undefined;
    throw err;
  });
  return decoy;
}

/**
 * Whether `password` matches the `stored` hash; with none (no such user, or one without a
 * password) a decoy hash of random bytes is verified instead and the answer is false, in the same
 * time. A hashing process that fails is an error, never a "no".
 */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  const against = stored ?? (await decoyHash());
  const matches = await oneAtATime(() => hasher.call<boolean>('verify', against, normalizePassword(password)));
  return stored !== null && matches;
}

/** A stored hash made with weaker parameters than today's: rehash it at the next sign-in. */
export const needsRehash = (hash: string) => argon2.needsRehash(hash, ARGON2_PARAMETERS);
