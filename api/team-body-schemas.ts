//! JSON Schemas of the team routes' request bodies (validation and OpenAPI): an invitation, a
//! role change, a transfer of ownership, the sign-in policy.
import { MAX_EMAIL_LENGTH } from '../domain/identity/index.js';
import { ROLES } from '../domain/teams/index.js';

const role = (description: string) => ({ type: 'string', enum: [...ROLES], description });
const userId = { type: 'string', minLength: 1, maxLength: 100, description: 'A member of the account (`usr_...`).' };

export const TEAM_BODY_SCHEMAS = {
  invite: {
    type: 'object',
    additionalProperties: false,
    required: ['email', 'role'],
    properties: {
      email: { type: 'string', minLength: 3, maxLength: MAX_EMAIL_LENGTH, description: 'The address to invite.' },
      role: role(
        'The role the person gets on joining. `owner` only for an account with no owning person yet (one the operator opened); otherwise ownership moves by a transfer.',
      ),
    },
  },
  changeRole: {
    type: 'object',
    additionalProperties: false,
    required: ['role'],
    properties: { role: role('The new role (not `owner`: ownership moves by a transfer).') },
  },
  transferOwnership: { type: 'object', additionalProperties: false, required: ['userId'], properties: { userId } },
  signInPolicy: {
    type: 'object',
    additionalProperties: false,
    required: ['requiredProvider'],
    properties: {
      requiredProvider: {
        type: ['string', 'null'],
        minLength: 1,
        maxLength: 64,
        description:
          'The id of an identity provider of the service (OIDC_PROVIDERS) that members must sign in through to act on the account; null: any way of signing in.',
      },
    },
  },
} as const;
