//! The ledger (domain/ledger/): credits reserved, committed and refunded on the account's document
//! (`ledger.ts`, composing the rest of the folder), grants as records and their voids, and the
//! balance alerts a charge raises.
export { spendMonth } from './account-fields.js';
export { voidedAfter } from './grant-voids.js';
export { createGrants, Grant, grantIdForKey, grantView, type Grants } from './grants.js';
export {
  GRANT_REASONS,
  LOW_BALANCE_THRESHOLD,
  createLedger,
  newAccountDoc,
  welcomeGrantId,
  type GrantReason,
  type Ledger,
  type RechargeSink,
} from './ledger.js';
