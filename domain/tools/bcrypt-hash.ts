//! bcrypt-hash: a new bcrypt hash of a password. Its precheck: the password fits bcrypt's
//! 72-byte input and the work factor stays within what the pool is sized for (4-14, docs/API.md).
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, Defaulted, type Validated } from '../../lib/schema-types.js';
import { invalidField } from '../../contracts/errors.js';
import { defineTool } from './definition.js';
import { utf8Bytes } from './utf8-bytes.js';

export const MIN_WORK_FACTOR = 4;
/** Each step doubles the time: 14 is ~1.2 s of one pool thread, 15 would be ~2.4 s. */
export const MAX_WORK_FACTOR = 14;
/** bcrypt reads at most 72 bytes of key; longer passwords are refused, never cut silently. */
export const MAX_PASSWORD_BYTES = 72;

export const BcryptHashInput = ClosedObject(
  {
    password: Type.String({
      minLength: 1,
      maxLength: MAX_PASSWORD_BYTES,
      description:
        'Plaintext password; never stored. 1 to 72 bytes in UTF-8: bcrypt reads at most 72 bytes, and a longer password is refused (400) rather than silently truncated.',
    }),
    workFactor: Defaulted(
      Type.Integer({
        minimum: MIN_WORK_FACTOR,
        maximum: MAX_WORK_FACTOR,
        description: 'BCrypt cost, 4 to 14; each step up doubles the time (11 takes about 0.15 s).',
      }),
      11,
    ),
  },
  {
    description: 'A password to hash with bcrypt. The password is used for this call only and never stored.',
    examples: [{ password: 'correct horse battery staple', workFactor: 11 }],
  },
);
export type BcryptHashInput = Validated<typeof BcryptHashInput>;
export const BcryptHashOutput = ClosedObject(
  {
    hash: Type.String({
      pattern: '^\\$2a\\$\\d\\d\\$[./A-Za-z0-9]{53}$',
      description:
        'BCrypt hash with embedded salt and work factor, in the 60-character modular crypt format ($2a$<cost>$<salt><hash>); verifies with any bcrypt library.',
    }),
  },
  { examples: [{ hash: '$2a$11$cutXoUmMetEY5cmvvtxyeO8C.e5GU13/2l/KjFxGGzc2DrkEY.z0u' }] },
);
export type BcryptHashOutput = Static<typeof BcryptHashOutput>;

/** Shared with bcrypt-verify: the same 1-72 byte rule applies to the password tested. */
export function checkBcryptPassword(password: unknown): void {
  if (typeof password !== 'string') throw invalidField('/password', 'must be a string');
  const bytes = utf8Bytes(password);
  // hash-wasm refuses an empty key (other implementations hash it as a single NUL byte).
  if (bytes === 0) throw invalidField('/password', 'must not be empty');
  if (bytes > MAX_PASSWORD_BYTES) {
    throw invalidField(
      '/password',
      `is ${bytes} bytes in UTF-8; bcrypt uses at most ${MAX_PASSWORD_BYTES} bytes and longer passwords are refused rather than silently truncated`,
    );
  }
}

export function precheck(input: BcryptHashInput): void {
  checkBcryptPassword(input.password);
  const { workFactor } = input;
  if (!Number.isInteger(workFactor) || workFactor < MIN_WORK_FACTOR || workFactor > MAX_WORK_FACTOR) {
    throw invalidField('/workFactor', `must be an integer from ${MIN_WORK_FACTOR} to ${MAX_WORK_FACTOR}`);
  }
}

export const bcryptHash = defineTool<BcryptHashInput, BcryptHashOutput>()({
  name: 'bcrypt-hash',
  group: 'hashing',
  cost: 2,
  pool: 'cpu',
  schemas: { input: BcryptHashInput, output: BcryptHashOutput },
  timeoutMs: 20_000,
  secretFields: ['password'],
  failures: [],
  precheck,
});
