//! The OpenAPI operations of members, invitations, ownership and the sign-in policy (`api/routes/teams.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { TEAM_BODY_SCHEMAS } from '../bodies/teams.js';
import { answer, BODY_CODES, jsonBody, OWNER, resource, type RouteOperation } from '../docs/operations.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function teamOperations(): RouteOperation[] {
  const userIdParam = { name: 'userId', in: 'path', required: true, schema: { type: 'string' }, description: 'The member (`usr_...`).' };
  const team = resource('team', OWNER);
  return [
    team('get', '/api/v1/account/members', {
      operationId: 'listMembers',
      summary: 'List the members',
      ok: answer('The members, first joined first.', 'MemberList'),
    }),
    team('patch', '/api/v1/account/members/{userId}', {
      operationId: 'changeMemberRole',
      summary: "Change a member's role",
      description:
        'Their sessions on the account take the new role at once. The owner cannot be demoted (409 `last_owner`: transfer ownership first); `owner` is given only by a transfer (400).',
      parameters: [userIdParam],
      requestBody: jsonBody(TEAM_BODY_SCHEMAS.changeRole, { role: 'developer' }),
      ok: answer('The member as they are now.', 'Member'),
      codes: [...BODY_CODES, 'not_found', 'last_owner'],
    }),
    team('delete', '/api/v1/account/members/{userId}', {
      operationId: 'removeMember',
      summary: 'Remove a member',
      description:
        'Their sessions on the account end at once, on every API instance; the API keys they made keep working and are listed as made by a former member. ' +
        'Fires `member.removed`. The owner cannot be removed (409 `last_owner`).',
      parameters: [userIdParam],
      ok: answer('Removed.', undefined, '204'),
      codes: ['not_found', 'last_owner'],
    }),
    team('post', '/api/v1/account/invitations', {
      operationId: 'invite',
      summary: 'Invite a person',
      description:
        'Mails an invitation link (valid 7 days, once; only its digest is stored). An earlier pending invitation to the address is revoked. ' +
        "409 `already_member` for a member's address. `owner` only attaches a person to an account with no owning person yet, such as one the operator opened (409 `already_exists` when it has one).",
      requestBody: jsonBody(TEAM_BODY_SCHEMAS.invite, { email: 'ada@example.com', role: 'developer' }),
      ok: answer('Mailed.', 'Invitation', '201'),
      codes: [...BODY_CODES, 'already_member', 'already_exists', 'not_found'],
    }),
    team('get', '/api/v1/account/invitations', {
      operationId: 'listInvitations',
      summary: 'List pending invitations',
      ok: answer('The invitations that can still be accepted, newest first.', 'InvitationList'),
    }),
    team('delete', '/api/v1/account/invitations/{id}', {
      operationId: 'revokeInvitation',
      summary: 'Revoke an invitation',
      description: 'Its link stops working at once (400 `invalid_token` when used).',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Invitation id (`inv_...`).' }],
      ok: answer('Revoked.', undefined, '204'),
      codes: ['not_found'],
    }),
    team('post', '/api/v1/account/transfer-ownership', {
      operationId: 'transferOwnership',
      summary: 'Transfer ownership',
      description:
        'Makes a member the owner; the owner before becomes an admin. From a session, its last sign-in must be within 10 minutes (403 `reauthentication_required`: sign in again). ' +
        "An owner token, the owner's own credential, needs no sign-in.",
      requestBody: jsonBody(TEAM_BODY_SCHEMAS.transferOwnership, { userId: 'usr_4hQ2mV8kZr1xYt6pW0nLbC' }),
      ok: answer('The new owner and the one before.', 'OwnershipTransferred'),
      codes: [...BODY_CODES, 'reauthentication_required', 'not_found'],
    }),
    team('get', '/api/v1/account/sign-in-policy', {
      operationId: 'getSignInPolicy',
      summary: 'Get the sign-in policy',
      ok: answer('The policy and the providers the service offers.', 'SignInPolicy'),
    }),
    team('put', '/api/v1/account/sign-in-policy', {
      operationId: 'setSignInPolicy',
      summary: 'Require an identity provider',
      description:
        'With `requiredProvider`, members act on the account only in sessions signed in through that provider: their password and passkey sign-ins are refused for this account ' +
        '(403 `provider_required`; their other accounts are not affected), and their live sessions on it that were not signed in through it end at once. ' +
        'A session setting it must itself be signed in through the provider (403 `provider_required`); owner tokens are not sign-ins and keep working. `null` lifts the requirement.',
      requestBody: jsonBody(TEAM_BODY_SCHEMAS.signInPolicy, { requiredProvider: 'acme' }),
      ok: answer('The policy as it is now.', 'SignInPolicy'),
      codes: [...BODY_CODES, 'provider_required'],
    }),
  ];
}
