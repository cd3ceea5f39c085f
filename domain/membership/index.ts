//! What people and teams share (domain/membership/): who is a member of which account with which
//! role, and the sign-in provider an account requires.
export type { MembershipDoc, Role, SignInMethod } from './documents.js';
export { createMemberships, type AccountOfPerson, type Memberships } from './memberships.js';
export { createSignInPolicies, policyAllows, providerRequired, providerSignInPath, type ProviderName } from './sign-in-policy.js';
