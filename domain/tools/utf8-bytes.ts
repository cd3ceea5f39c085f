//! UTF-8 length: what bcrypt's 72-byte limit and hash-text's 1 MiB limit are measured in, which
//! JSON Schema's `maxLength` (characters) cannot express.

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
