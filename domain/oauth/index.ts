//! Agents' OAuth sign-in (domain/oauth/): oidc-provider's records in the database and an account's
//! connected apps.
export { connectionView, createConnections, type Connections } from './connections.js';
export { oauthStoreAdapter, sweepOAuthStore } from './store.js';
