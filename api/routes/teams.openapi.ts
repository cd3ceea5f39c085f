//! The OpenAPI operations of members, invitations, ownership and the sign-in policy (`api/routes/teams.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { TEAM_BODY_SCHEMAS } from '../bodies/teams.js';
import { json } from '../docs/openapi-parts.js';
import { BODY_CODES, OWNER_CODES, example, operation, owner, withRateLimit, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function teamOperations(): RouteOperation[] {
  const body = (schema: keyof typeof TEAM_BODY_SCHEMAS, value: Record<string, unknown>) => ({
    required: true,
    content: json(TEAM_BODY_SCHEMAS[schema], example(value)),
  });
  const userIdParam = { name: 'userId', in: 'path', required: true, schema: { type: 'string' }, description: 'The member (`usr_...`).' };
  const team = (operationId: string, summary: string) => ({ tag: 'team' as const, operationId, summary, ...owner() });
  return [
    operation('get', '/api/v1/account/members', {
      ...team('listMembers', 'List the members'),
      ok: withRateLimit('The members, first joined first.', json(ref('MemberList'))),
      codes: OWNER_CODES,
    }),
    operation('patch', '/api/v1/account/members/{userId}', {
      ...team('changeMemberRole', "Change a member's role"),
      description:
        'Their sessions on the account take the new role at once. The owner cannot be demoted (409 `last_owner`: transfer ownership first); `owner` is given only by a transfer (400).',
      parameters: [userIdParam],
      requestBody: body('changeRole', { role: 'developer' }),
      ok: withRateLimit('The member as they are now.', json(ref('Member'))),
      codes: [...OWNER_CODES, ...BODY_CODES, 'not_found', 'last_owner'],
    }),
    operation('delete', '/api/v1/account/members/{userId}', {
      ...team('removeMember', 'Remove a member'),
      description:
        'Their sessions on the account end at once, on every API instance; the API keys they made keep working and are listed as made by a former member. ' +
        'Fires `member.removed`. The owner cannot be removed (409 `last_owner`).',
      parameters: [userIdParam],
      ok: withRateLimit('Removed.', undefined, '204'),
      codes: [...OWNER_CODES, 'not_found', 'last_owner'],
    }),
    operation('post', '/api/v1/account/invitations', {
      ...team('invite', 'Invite a person'),
      description:
        'Mails an invitation link (valid 7 days, once; only its digest is stored). An earlier pending invitation to the address is revoked. ' +
        "409 `already_member` for a member's address. `owner` only attaches a person to an account with no owning person yet, such as one the operator opened (409 `already_exists` when it has one).",
      requestBody: body('invite', { email: 'ada@example.com', role: 'developer' }),
      ok: withRateLimit('Mailed.', json(ref('Invitation')), '201'),
      codes: [...OWNER_CODES, ...BODY_CODES, 'already_member', 'already_exists', 'not_found'],
    }),
    operation('get', '/api/v1/account/invitations', {
      ...team('listInvitations', 'List pending invitations'),
      ok: withRateLimit('The invitations that can still be accepted, newest first.', json(ref('InvitationList'))),
      codes: OWNER_CODES,
    }),
    operation('delete', '/api/v1/account/invitations/{id}', {
      ...team('revokeInvitation', 'Revoke an invitation'),
      description: 'Its link stops working at once (400 `invalid_token` when used).',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Invitation id (`inv_...`).' }],
      ok: withRateLimit('Revoked.', undefined, '204'),
      codes: [...OWNER_CODES, 'not_found'],
    }),
    operation('post', '/api/v1/account/transfer-ownership', {
      ...team('transferOwnership', 'Transfer ownership'),
      description:
        'Makes a member the owner; the owner before becomes an admin. From a session, its last sign-in must be within 10 minutes (403 `reauthentication_required`: sign in again). ' +
        "An owner token, the owner's own credential, needs no sign-in.",
      requestBody: body('transferOwnership', { userId: 'usr_4hQ2mV8kZr1xYt6pW0nLbC' }),
      ok: withRateLimit('The new owner and the one before.', json(ref('OwnershipTransferred'))),
      codes: [...OWNER_CODES, ...BODY_CODES, 'reauthentication_required', 'not_found'],
    }),
    operation('get', '/api/v1/account/sign-in-policy', {
      ...team('getSignInPolicy', 'Get the sign-in policy'),
      ok: withRateLimit('The policy and the providers the service offers.', json(ref('SignInPolicy'))),
      codes: OWNER_CODES,
    }),
    operation('put', '/api/v1/account/sign-in-policy', {
      ...team('setSignInPolicy', 'Require an identity provider'),
      description:
        'With `requiredProvider`, members act on the account only in sessions signed in through that provider: their password and passkey sign-ins are refused for this account ' +
        '(403 `provider_required`; their other accounts are not affected), and their live sessions on it that were not signed in through it end at once. ' +
        'A session setting it must itself be signed in through the provider (403 `provider_required`); owner tokens are not sign-ins and keep working. `null` lifts the requirement.',
      requestBody: body('signInPolicy', { requiredProvider: 'acme' }),
      ok: withRateLimit('The policy as it is now.', json(ref('SignInPolicy'))),
      codes: [...OWNER_CODES, ...BODY_CODES, 'provider_required'],
    }),
  ];
}
