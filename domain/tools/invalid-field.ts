//! The 400 a precheck answers with, shaped like the schema validator's (api/validation.ts), so a
//! client sees one format whether JSON Schema or a precheck refused the field.
import { ToolError } from '../../lib/errors.js';

/** `field` is a JSON pointer into the input (`/password`); `message` reads after it. */
export function invalidField(field: string, message: string): ToolError {
  return new ToolError('validation_failed', `The input is invalid: ${field} ${message}.`, { errors: [{ field, message }] });
}

/** UTF-8 length: what bcrypt's 72-byte limit and hash-text's 1 MiB limit are measured in. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
