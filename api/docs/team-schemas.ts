//! Component schemas of the team routes' answers: members, invitations, a transfer of ownership,
//! the sign-in policy, and who made an API key.
import { Invitation, KeyMaker, Member } from '../../domain/teams/index.js';
import { record, ref, type JsonSchema } from './schema-parts.js';

export const TEAM_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  Member,
  MemberList: { type: 'array', items: ref('Member'), description: 'Every member, first joined first.' },
  Invitation,
  InvitationList: { type: 'array', items: ref('Invitation'), description: 'The pending invitations, newest first.' },
  OwnershipTransferred: record('The account has a new owner.', {
    owner: ref('Member'),
    previousOwner: {
      oneOf: [ref('Member'), { type: 'null' }],
      description: 'The owner before, now an admin; null when the account had no owning person (an owner token acted).',
    },
  }),
  SignInPolicy: record("How the account's members must sign in to act on it.", {
    requiredProvider: {
      type: ['string', 'null'],
      description: 'The identity provider they must sign in through; null: any way (password, passkey, a provider).',
    },
    providers: {
      type: 'array',
      description: 'The identity providers of the service (OIDC_PROVIDERS).',
      items: record('A provider.', {
        id: { type: 'string', description: 'Its id.' },
        name: { type: 'string', description: 'Its display name.' },
        signInPath: { type: 'string', description: 'Where a sign-in through it starts (GET).' },
      }),
    },
    sessionsEnded: {
      type: 'integer',
      minimum: 0,
      description: 'Sessions on the account that ended because they were not signed in through the provider (0 on a read).',
    },
  }),
  KeyMaker,
};
