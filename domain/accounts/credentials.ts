//! API keys (`utk_`) and owner tokens (`uto_`): 40 random base62 characters after the prefix,
//! stored only as a SHA-256 digest, the first 12 characters kept for display.
import { randomBase62, sha256Hex } from '../../lib/ids.js';
import type { CredentialKind } from '../account-documents.js';

export const CREDENTIAL_PREFIX: Record<CredentialKind, string> = { api_key: 'utk_', owner_token: 'uto_' };
const SHAPE = /^(utk|uto)_[0-9A-Za-z]{40}$/;

export interface NewCredential {
  secret: string;
  digest: string;
  prefix: string;
}

export function newCredential(kind: CredentialKind): NewCredential {
  const secret = CREDENTIAL_PREFIX[kind] + randomBase62(40);
  return { secret, digest: sha256Hex(secret), prefix: secret.slice(0, 12) };
}

/** The kind a well-formed credential claims, or null when it cannot be one of ours. */
export function credentialKind(secret: string): CredentialKind | null {
  const m = SHAPE.exec(secret);
  if (!m) return null;
  return m[1] === 'utk' ? 'api_key' : 'owner_token';
}

export { sha256Hex as credentialDigest };
