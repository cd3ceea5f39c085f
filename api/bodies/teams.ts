//! The team routes' request bodies (api/routes/teams.ts): an invitation, a role change, a transfer
//! of ownership, the sign-in policy; validation, OpenAPI and types in one.
import { Type } from '@sinclair/typebox';
import { MAX_EMAIL_LENGTH } from '../../domain/identity/index.js';
import { ROLES } from '../../domain/teams/index.js';
import { ClosedObject, Nullable, StringEnum } from '../../lib/schema-types.js';

const role = (description: string) => StringEnum(ROLES, { description });

export const TEAM_BODY_SCHEMAS = {
  invite: ClosedObject({
    email: Type.String({ minLength: 3, maxLength: MAX_EMAIL_LENGTH, description: 'The address to invite.' }),
    role: role(
      'The role the person gets on joining. `owner` only for an account with no owning person yet (one the operator opened); otherwise ownership moves by a transfer.',
    ),
  }),
  changeRole: ClosedObject({ role: role('The new role (not `owner`: ownership moves by a transfer).') }),
  transferOwnership: ClosedObject({
    userId: Type.String({ minLength: 1, maxLength: 100, description: 'A member of the account (`usr_...`).' }),
  }),
  signInPolicy: ClosedObject({
    requiredProvider: Nullable(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'The id of an identity provider of the service (OIDC_PROVIDERS) that members must sign in through to act on the account; null: any way of signing in.',
      }),
    ),
  }),
};
