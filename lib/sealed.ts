//! Authenticated encryption (AES-256-GCM) of small JSON values: per-call secrets sealed with
//! the call's key, and secrets at rest (webhook signing secrets) sealed with SECRET_KEY.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/** `v1.<iv>.<tag>.<ciphertext>`, each part base64url. `aad` binds the value to its context. */
export function seal(key: Buffer, value: unknown, aad = ''): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

export function open<T = unknown>(key: Buffer, sealed: string, aad = ''): T {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || data === undefined) throw new Error('sealed value is malformed');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as T;
}

/** Splits `fields` out of `input`: what may travel in clear, and what must be sealed. */
export function splitSecrets(input: Record<string, unknown>, fields: readonly string[]) {
  const clear: Record<string, unknown> = {};
  const secret: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) (fields.includes(k) ? secret : clear)[k] = v;
  return { clear, secret, hasSecrets: Object.keys(secret).length > 0 };
}
