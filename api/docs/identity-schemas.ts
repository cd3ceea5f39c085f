//! Component schemas of the sign-up and sign-in answers: a signed-in session, the list of
//! sessions, a passkey.
import { ROLES } from '../../domain/teams/index.js';
import { dateTime, id, record, ref, type JsonSchema } from './schema-parts.js';

const role = { type: 'string', enum: [...ROLES], description: "The member's role on the account." };
const accountRef = record('An account the person is a member of.', {
  id: id('acc', 'Account id.'),
  name: { type: ['string', 'null'], description: 'Its name.' },
  role,
  requiredProvider: {
    type: ['string', 'null'],
    description: 'The identity provider its members must sign in through to act on it (its sign-in policy); null: any way.',
  },
});

export const IDENTITY_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  SignedIn: record('Who is signed in, the account the session acts on, and the session.', {
    user: record('The person.', {
      id: id('usr', 'User id.'),
      email: { type: 'string', description: 'Their verified address.' },
      name: { type: ['string', 'null'], description: 'Their name.' },
    }),
    account: accountRef,
    accounts: {
      type: 'array',
      items: accountRef,
      description: 'Every account the person is a member of (switch with PUT /api/v1/auth/session).',
    },
    session: record('This session (its secret is only in the cookie).', {
      id: id('ses', 'Session id.'),
      createdAt: dateTime('When it was signed in.'),
      expiresAt: dateTime(
        'When it ends at the latest (SESSION_MAX_DAYS after sign-in); it ends sooner after SESSION_IDLE_HOURS without use.',
      ),
      authenticatedAt: dateTime('The last sign-in in it: passwords and passkeys can be changed for 10 minutes after.'),
      method: {
        type: 'string',
        enum: ['password', 'passkey', 'verification', 'password_reset', 'invitation', 'oidc'],
        description: 'How it was signed in.',
      },
      provider: { type: ['string', 'null'], description: 'Method `oidc`: the identity provider it was signed in through; null otherwise.' },
    }),
  }),
  IdentityProviders: {
    type: 'array',
    description: 'The identity providers people may sign in through (OIDC_PROVIDERS).',
    items: record('A provider.', {
      id: { type: 'string', description: 'Its id.' },
      name: { type: 'string', description: 'What to call it ("Sign in with <name>").' },
      signInPath: { type: 'string', description: 'Where a sign-in through it starts: open it in the browser (GET).' },
    }),
  },
  SessionList: {
    type: 'array',
    description: 'The live sessions of the signed-in person, newest first.',
    items: record('A session.', {
      id: id('ses', 'Session id.'),
      createdAt: dateTime('Signed in at.'),
      lastSeenAt: dateTime('Last used at (to the minute).'),
      expiresAt: dateTime('Ends at the latest.'),
      ip: { type: ['string', 'null'], description: 'The address it signed in from.' },
      userAgent: { type: ['string', 'null'], description: 'The browser it signed in with.' },
      method: { type: 'string', description: 'How it was signed in.' },
      current: { type: 'boolean', description: 'The session of this request.' },
    }),
  },
  Passkey: record('A passkey of the signed-in person.', {
    id: { type: 'string', description: 'The credential id (base64url).' },
    name: { type: 'string', description: 'What it is called.' },
    createdAt: dateTime('Added at.'),
    lastUsedAt: { type: ['string', 'null'], format: 'date-time', description: 'Last used to sign in.' },
    deviceType: { type: 'string', description: '`singleDevice`, or `multiDevice` for a synced passkey.' },
    backedUp: { type: 'boolean', description: 'Whether the authenticator says it is backed up.' },
    transports: { type: 'array', items: { type: 'string' }, description: 'How the browser reaches it.' },
  }),
  Status: record('What was done.', { status: { type: 'string', description: '`verification_sent`, `reset_sent` or `password_changed`.' } }),
  EndedSessions: record('Sessions ended.', { ended: { type: 'integer', minimum: 0, description: 'How many.' } }),
  PasswordChanged: record('The password is changed.', {
    sessionsEnded: { type: 'integer', minimum: 0, description: 'Other sessions ended by the change.' },
  }),
  WebAuthnOptions: {
    type: 'object',
    description:
      'WebAuthn options (PublicKeyCredentialCreationOptionsJSON or RequestOptionsJSON), for `startRegistration` or `startAuthentication` of `@simplewebauthn/browser`.',
  },
};

export const signedInRef = ref('SignedIn');
