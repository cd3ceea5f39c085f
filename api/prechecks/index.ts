//! Every tool's I/O-free precheck, keyed by tool name. The API runs it after JSON Schema
//! validation (defaults applied) and before a workflow starts; the worker runs it again.
import { precheck as argon2Verify } from './argon2-verify.js';
import { precheck as bcryptHash } from './bcrypt-hash.js';
import { precheck as bcryptVerify } from './bcrypt-verify.js';
import { precheck as hashText } from './hash-text.js';
import { precheck as qrGenerate } from './qr-generate.js';

/** Throws a ToolError when the input cannot be served; returns nothing otherwise. */
export type Precheck = (input: Record<string, unknown>) => void;

/** Input reaching a precheck has passed its tool's schema: the cast states that, once. */
const forSchemaValidInput = <I>(check: (input: I) => void): Precheck => (input) => check(input as I);

export const PRECHECKS: Readonly<Record<string, Precheck>> = {
  'hash-text': forSchemaValidInput(hashText),
  'bcrypt-hash': forSchemaValidInput(bcryptHash),
  'bcrypt-verify': forSchemaValidInput(bcryptVerify),
  'argon2-verify': forSchemaValidInput(argon2Verify),
  'qr-generate': forSchemaValidInput(qrGenerate),
};
