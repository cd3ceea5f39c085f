//! bcrypt-verify: whether a password produces a bcrypt hash. Its precheck: the password rule of
//! bcrypt-hash, the hash's syntax, and its cost, read from the hash before any thread spends time on it.
import { Type } from '@sinclair/typebox';
import { ClosedObject, type Validated } from '../../lib/schema-types.js';
import { ToolError } from '../../contracts/errors.js';
import { defineTool } from './definition.js';
import { HashMatchOutput, VERIFIES_PASSWORD } from './hash-match.js';
import { MAX_WORK_FACTOR, checkBcryptPassword } from './bcrypt-hash.js';

export const BcryptVerifyInput = ClosedObject(
  {
    password: Type.String({
      minLength: 1,
      maxLength: 72,
      description: 'Plaintext password to test; never stored. 1 to 72 bytes in UTF-8, as for bcrypt-hash.',
    }),
    hash: Type.String({
      description:
        'Stored BCrypt hash: $2a$, $2b$ or $2y$, a two-digit cost, then 53 characters of salt and hash. A hash that does not parse answers 422 invalid_hash; one with a cost above 14 answers 422 hash_too_costly.',
    }),
  },
  {
    description: 'A password and a stored bcrypt hash to test it against. The work factor is read from the hash.',
    examples: [{ password: 'correct horse battery staple', hash: '$2b$10$502RjdF2vK2s3wxiY7q6tO4iHtz1.1jj.q.MQOJbG.vssttlX0aMO' }],
  },
);
export type BcryptVerifyInput = Validated<typeof BcryptVerifyInput>;
export const BcryptVerifyOutput = HashMatchOutput;
export type BcryptVerifyOutput = HashMatchOutput;

export interface BcryptHashParams {
  /** `2a` (hash-wasm, bcryptjs), `2b` (OpenBSD, native bcrypt) or `2y` (PHP); same algorithm. */
  variant: '2a' | '2b' | '2y';
  cost: number;
}

// `$2b$12$` then 22 characters of salt and 31 of hash, in bcrypt's own base64 alphabet.
const BCRYPT_HASH = /^\$(2[aby])\$(\d\d)\$[./A-Za-z0-9]{53}$/;

/** Parses a modular-crypt bcrypt hash; 422 `invalid_hash` when it is not one. */
export function parseBcryptHash(hash: string): BcryptHashParams {
  const match = typeof hash === 'string' ? BCRYPT_HASH.exec(hash) : null;
  if (!match) {
    throw new ToolError(
      'invalid_hash',
      'The hash is not a bcrypt hash: expected $2a$, $2b$ or $2y$, a two-digit cost and 53 characters of salt and hash (60 in all).',
    );
  }
  const cost = Number(match[2]);
  if (cost < 4 || cost > 31) throw new ToolError('invalid_hash', `The hash has cost ${cost}; bcrypt costs run from 04 to 31.`);
  return { variant: match[1] as BcryptHashParams['variant'], cost };
}

/**
 * The cost is chosen by whoever supplies the hash, so it is capped like bcrypt-hash's work
 * factor: one cost-31 hash would hold a pool thread for days. The limit protects the pool.
 */
export function checkBcryptCost({ cost }: BcryptHashParams): void {
  if (cost > MAX_WORK_FACTOR) {
    throw new ToolError('hash_too_costly', `The hash has cost ${cost}; at most ${MAX_WORK_FACTOR} is accepted.`, {
      limits: { cost: MAX_WORK_FACTOR },
    });
  }
}

export function precheck(input: BcryptVerifyInput): void {
  checkBcryptPassword(input.password);
  checkBcryptCost(parseBcryptHash(input.hash));
}

export const bcryptVerify = defineTool<BcryptVerifyInput, BcryptVerifyOutput>()({
  name: 'bcrypt-verify',
  group: 'hashing',
  cost: 2,
  pool: 'cpu',
  schemas: { input: BcryptVerifyInput, output: BcryptVerifyOutput },
  timeoutMs: 20_000,
  ...VERIFIES_PASSWORD,
  precheck,
});
