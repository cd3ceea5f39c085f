//! The answer of the tools that test a password against a stored hash (argon2-verify,
//! bcrypt-verify): only whether it matches, whatever the algorithm.
import { Type } from '@sinclair/typebox';
import { ClosedObject } from '../../lib/schema-types.js';

export const HashMatchOutput = ClosedObject(
  { matches: Type.Boolean({ description: 'True when the password produces the hash.' }) },
  { examples: [{ matches: true }] },
);
