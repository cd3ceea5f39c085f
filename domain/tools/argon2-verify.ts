//! argon2-verify: whether a password produces an Argon2 PHC hash. Its precheck: the PHC string
//! parses, hash-wasm can verify it, and its cost parameters stay within the limits (docs/API.md)
//! before a pool thread spends on it.
import { Type } from '@sinclair/typebox';
import { ClosedObject, type Validated } from '../../lib/schema-types.js';
import { ToolError, invalidField } from '../../contracts/errors.js';
import { defineTool } from './definition.js';
import { HashMatchOutput, VERIFIES_PASSWORD } from './hash-match.js';

export const Argon2VerifyInput = ClosedObject(
  {
    password: Type.String({ minLength: 1, description: 'Plaintext password to test; never stored. Must not be empty.' }),
    hash: Type.String({
      description:
        'Stored Argon2 hash in PHC string format: $argon2id$, $argon2i$ or $argon2d$, then v=19$m=<KiB>,t=<iterations>,p=<lanes>$<salt>$<hash> (parameters in any order) with unpadded base64 salt and hash. Memory at most 262144 KiB (256 MiB), iterations at most 10, parallelism at most 16 (422 hash_too_costly beyond); a hash that does not parse, or of version 16, answers 422 invalid_hash.',
    }),
  },
  {
    description: 'A password and a stored Argon2 hash to test it against. Variant and cost parameters are read from the hash.',
    examples: [
      {
        password: 'correct horse battery staple',
        hash: '$argon2id$v=19$m=65536,p=4,t=3$rbzNh8uWxe1CKKNEBt/X3g$H/dJ4fDTFju8so8RgbGysk92CsuE/30H+DPajoeFIlY',
      },
    ],
  },
);
export type Argon2VerifyInput = Validated<typeof Argon2VerifyInput>;
export const Argon2VerifyOutput = HashMatchOutput;
export type Argon2VerifyOutput = HashMatchOutput;

export interface Argon2Params {
  variant: 'argon2id' | 'argon2i' | 'argon2d';
  /** `m`, in KiB. */
  memoryKiB: number;
  /** `t`, passes over memory. */
  iterations: number;
  /** `p`, lanes. */
  parallelism: number;
  saltBytes: number;
  hashBytes: number;
}

/**
 * The supplied hash chooses the work, so it is capped: a verify holds one pool thread for its
 * whole run (~4.5 s at the limits below) and allocates `m` KiB of WebAssembly memory.
 */
export const ARGON2_LIMITS = { memoryKiB: 256 * 1024, iterations: 10, parallelism: 16 } as const;

// PHC string: `$argon2id$v=19$m=65536,t=3,p=4$salt$hash`, salt and hash in unpadded standard
// base64. The reference implementation writes m,t,p; node-argon2 writes m,p,t: any order is read.
const PHC = /^\$(argon2id|argon2i|argon2d)\$(?:v=(\d{1,10})\$)?([a-z]+=\d{1,10}(?:,[a-z]+=\d{1,10})*)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;
const UINT32_MAX = 2 ** 32 - 1;

const invalid = (why: string) => new ToolError('invalid_hash', `The hash is not a usable Argon2 PHC string: ${why}.`);

/** Bytes encoded by unpadded base64 of this length, or -1 when no byte string encodes to it. */
function base64Bytes(encoded: string): number {
  return encoded.length % 4 === 1 ? -1 : Math.floor((encoded.length * 3) / 4);
}

/** `m=65536,t=3,p=4` in any order, each exactly once; null for anything else (keyid, data ...). */
function costParameters(list: string): { m: number; t: number; p: number } | null {
  const found = new Map<string, number>();
  for (const pair of list.split(',')) {
    const [name, value] = pair.split('=') as [string, string];
    if (!['m', 't', 'p'].includes(name) || found.has(name)) return null;
    found.set(name, Number(value));
  }
  return found.size === 3 ? { m: found.get('m')!, t: found.get('t')!, p: found.get('p')! } : null;
}

/** Parses an Argon2 PHC string; 422 `invalid_hash` for anything hash-wasm could not verify. */
export function parseArgon2Hash(hash: string): Argon2Params {
  const match = typeof hash === 'string' ? PHC.exec(hash) : null;
  if (!match) throw invalid('expected $argon2id$, $argon2i$ or $argon2d$, then v=19$m=<KiB>,t=<iterations>,p=<lanes>$<salt>$<hash>');
  const [, variant, rawVersion, list, salt, digest] = match;
  // No `v=` is the pre-1.3 format, version 16; hash-wasm implements version 19 (0x13) only.
  if (rawVersion !== '19')
    throw invalid(`version ${rawVersion ?? '16 (no v= field)'} is not supported, only v=19 (Argon2 1.3, what current libraries write)`);
  const cost = costParameters(list!);
  if (!cost) throw invalid('the parameters must be m, t and p, each once (for example m=65536,t=3,p=4)');
  const { m: memoryKiB, t: iterations, p: parallelism } = cost;
  if ([memoryKiB, iterations, parallelism].some((n) => n > UINT32_MAX)) throw invalid('a parameter does not fit 32 bits');
  if (iterations < 1 || parallelism < 1) throw invalid('t and p must be at least 1');
  if (memoryKiB < 8 * parallelism) throw invalid('m must be at least 8 KiB per lane (8 * p)');
  const saltBytes = base64Bytes(salt!);
  const hashBytes = base64Bytes(digest!);
  if (saltBytes < 8) throw invalid('the salt must be valid base64 of at least 8 bytes');
  if (hashBytes < 4) throw invalid('the hash must be valid base64 of at least 4 bytes');
  return { variant: variant as Argon2Params['variant'], memoryKiB, iterations, parallelism, saltBytes, hashBytes };
}

export function checkArgon2Cost(params: Argon2Params): void {
  const over: string[] = [];
  if (params.memoryKiB > ARGON2_LIMITS.memoryKiB)
    over.push(`memory m=${params.memoryKiB} KiB (at most ${ARGON2_LIMITS.memoryKiB}, 256 MiB)`);
  if (params.iterations > ARGON2_LIMITS.iterations) over.push(`iterations t=${params.iterations} (at most ${ARGON2_LIMITS.iterations})`);
  if (params.parallelism > ARGON2_LIMITS.parallelism)
    over.push(`parallelism p=${params.parallelism} (at most ${ARGON2_LIMITS.parallelism})`);
  if (over.length > 0) {
    throw new ToolError('hash_too_costly', `The hash asks for more than this service verifies: ${over.join('; ')}.`, {
      limits: ARGON2_LIMITS,
    });
  }
}

export function precheck(input: Argon2VerifyInput): void {
  // hash-wasm refuses an empty password; the schema says so too (minLength 1).
  if (typeof input.password !== 'string' || input.password.length === 0) throw invalidField('/password', 'must be a non-empty string');
  checkArgon2Cost(parseArgon2Hash(input.hash));
}

export const argon2Verify = defineTool<Argon2VerifyInput, Argon2VerifyOutput>()({
  name: 'argon2-verify',
  group: 'hashing',
  cost: 3,
  pool: 'cpu',
  schemas: { input: Argon2VerifyInput, output: Argon2VerifyOutput },
  timeoutMs: 30_000,
  ...VERIFIES_PASSWORD,
  precheck,
});
