//! Teams (domain/teams/): members and their roles, invitations, and the account's sign-in policy,
//! built on people (domain/identity/) and on what people and teams share (domain/membership/: the
//! memberships and the sign-in policy). Who may do what is the table of permissions.ts.
import type { Identity } from '../identity/index.js';
import { createInvitations } from './invitations.js';
import { createMembers } from './members.js';
import { createSignInPolicies } from '../membership/index.js';

export function createTeams(identity: Identity) {
  return {
    memberships: identity.memberships,
    members: createMembers(identity),
    invitations: createInvitations(identity, identity.signin),
    signInPolicies: createSignInPolicies({ db: identity.db, sessions: identity.sessions, providers: identity.providers }),
  };
}

export type Teams = ReturnType<typeof createTeams>;
export { Invitation, invitationView, type InvitationView } from './invitations.js';
export { KeyMaker, Member, type Members } from './members.js';
export { GROUPS, ROLES, groupFor, permits } from './permissions.js';
