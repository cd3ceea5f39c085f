//! What the tools that test a password against a stored hash share (argon2-verify, bcrypt-verify):
//! their answer, only whether it matches, whatever the algorithm; the password kept out of
//! history; and the failures of a hash whose parameters the caller chose.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject } from '../../lib/schema-types.js';
import { FAILURES } from './definition.js';

export const HashMatchOutput = ClosedObject(
  { matches: Type.Boolean({ description: 'True when the password produces the hash.' }) },
  { examples: [{ matches: true }] },
);
export type HashMatchOutput = Static<typeof HashMatchOutput>;

/** A verify tool's definition beyond its name, group, price, pool, schemas, deadline and precheck. */
export const VERIFIES_PASSWORD = {
  secretFields: ['password'],
  failures: FAILURES.readsHash,
} as const;
