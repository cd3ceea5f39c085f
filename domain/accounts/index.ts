//! Accounts (domain/accounts/): opening one, its API keys and owner tokens as digests, and a key's
//! settings (what it may call, until when, how fast, from where).
export { ApiKeyFields, ApiKeyView, createAccounts, publicKey, type Accounts } from './accounts.js';
export { credentialDigest, credentialKind } from './credentials.js';
export {
  KeySettingsView,
  MAX_ALLOWED_IPS,
  TOOL_SCOPES,
  keyExpired,
  keyMayCall,
  keySettingsView,
  settingProblems,
  type KeySettingsInput,
} from './key-settings.js';
