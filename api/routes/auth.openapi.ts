//! The OpenAPI operations of the sign-up, sign-in, session and passkey routes (`api/routes/auth.ts`),
//! beside them rather than inside them so the handlers' file stays about handling.
import { AUTH_BODY_SCHEMAS } from '../bodies/auth.js';
import { json } from '../docs/openapi-parts.js';
import {
  BODY_CODES,
  jsonBody,
  open,
  operation,
  optionalSession,
  plain,
  session as sessionSecurity,
  SESSION_CODES,
  type RouteOperation,
} from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

const STATUS_PERSON_CODES = ['rate_limited', 'unavailable', 'internal_error'] as const;

const signedInAnswer = (description: string) => plain(description, json(ref('SignedIn')));
const auth = (summary: string, operationId: string, extra: Record<string, unknown>) => ({
  tag: 'auth' as const,
  operationId,
  summary,
  ...extra,
});

/** The operations this router serves, as the OpenAPI document lists them. */
export function authOperations(): RouteOperation[] {
  return [...accountOperations(), ...passkeyOperations()];
}

/** Sign-up, sign-in, sessions and passwords. */
function accountOperations(): RouteOperation[] {
  return [
    operation('post', '/api/v1/auth/signup', {
      ...auth('Sign up', 'signUp', open()),
      description:
        'Mails a link that confirms the address (valid 24 hours, once). The answer is the same whether or not the address has an account: a known address is mailed a note instead. ' +
        'Confirming opens the account with its welcome grant (once per mailbox: `a+x@host` and `a@host` are one) and signs in. 403 `signup_closed` when the operator turned sign-up off.',
      requestBody: jsonBody(AUTH_BODY_SCHEMAS.signup, { email: 'ada@example.com', password: 'correct horse battery staple', name: 'Ada' }),
      ok: plain('The mail is on its way (or, for a known address, a note).', json(ref('Status')), '202'),
      codes: [...BODY_CODES, 'signup_closed', ...STATUS_PERSON_CODES],
    }),
    operation('post', '/api/v1/auth/verify', {
      ...auth('Confirm the address', 'verifyAddress', open()),
      description: 'Takes the token of the sign-up mail: opens the account and signs in (sets the session cookie). A token works once.',
      requestBody: jsonBody(AUTH_BODY_SCHEMAS.verify, { token: 'Jq3...' }),
      ok: signedInAnswer('Signed in to the new account.'),
      codes: [...BODY_CODES, 'invalid_token', ...STATUS_PERSON_CODES],
    }),
    operation('post', '/api/v1/auth/signin', {
      ...auth('Sign in with a password', 'signIn', open()),
      description:
        'Sets the session cookie. One answer, 401 `invalid_credentials`, for a wrong password, an unknown address and an unverified one. ' +
        '10 failures for an address within 15 minutes lock it for 15 minutes (429 `too_many_attempts`, and its owner is told by mail); 100 from one client address lock that client.',
      requestBody: jsonBody(AUTH_BODY_SCHEMAS.signin, { email: 'ada@example.com', password: 'correct horse battery staple' }),
      ok: signedInAnswer('Signed in.'),
      codes: [...BODY_CODES, 'invalid_credentials', 'too_many_attempts', 'forbidden', 'provider_required', ...STATUS_PERSON_CODES],
    }),
    operation('post', '/api/v1/auth/signout', {
      ...auth('Sign out', 'signOut', optionalSession()),
      description: 'Ends this session on the server and clears the cookie. Answers 204 also without a session.',
      ok: plain('Signed out.', undefined, '204'),
      codes: ['csrf_rejected', 'unavailable', 'internal_error'],
    }),
    operation('get', '/api/v1/auth/session', {
      ...auth('The signed-in session', 'getSession', sessionSecurity()),
      ok: signedInAnswer('Who is signed in, and on which account.'),
      codes: SESSION_CODES,
    }),
    operation('put', '/api/v1/auth/session', {
      ...auth('Act on another account', 'switchAccount', sessionSecurity()),
      description:
        'The session acts on another account of the person, with their role there. An account that requires its members to sign in through an identity provider ' +
        'takes only a session signed in through it (403 `provider_required`).',
      requestBody: jsonBody(AUTH_BODY_SCHEMAS.switchAccount, { accountId: 'acc_4hQ2mV8kZr1xYt6pW0nLbC' }),
      ok: signedInAnswer('The session now acts on that account.'),
      codes: [...SESSION_CODES, ...BODY_CODES, 'not_found', 'rate_limited', 'provider_required'],
    }),
    operation('get', '/api/v1/auth/sessions', {
      ...auth('List my sessions', 'listSessions', sessionSecurity()),
      ok: plain('The live sessions.', json(ref('SessionList'))),
      codes: SESSION_CODES,
    }),
    operation('delete', '/api/v1/auth/sessions', {
      ...auth('End my other sessions', 'endOtherSessions', sessionSecurity()),
      ok: plain('Every other session has ended.', json(ref('EndedSessions'))),
      codes: SESSION_CODES,
    }),
    operation('delete', '/api/v1/auth/sessions/{id}', {
      ...auth('End a session', 'endSession', sessionSecurity()),
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Session id (`ses_...`).' }],
      ok: plain('The session has ended, at once, on every API instance.', undefined, '204'),
      codes: [...SESSION_CODES, 'not_found'],
    }),
    operation('post', '/api/v1/auth/password', {
      ...auth('Change my password', 'changePassword', sessionSecurity()),
      description:
        'Needs the current password and a sign-in within the last 10 minutes (else 403 `reauthentication_required`). Ends the other sessions and mails a note.',
      requestBody: jsonBody(AUTH_BODY_SCHEMAS.changePassword, {
        currentPassword: 'correct horse battery staple',
        newPassword: 'a longer passphrase than before',
      }),
      ok: plain('Changed.', json(ref('PasswordChanged'))),
      codes: [...SESSION_CODES, ...BODY_CODES, 'reauthentication_required', 'too_many_attempts'],
    }),
    operation('post', '/api/v1/auth/password-reset', {
      ...auth('Ask for a password reset', 'requestPasswordReset', open()),
      description: 'Mails a reset link (valid 30 minutes, once) when the address has an account. The answer is the same for any address.',
      requestBody: jsonBody(AUTH_BODY_SCHEMAS.requestReset, { email: 'ada@example.com' }),
      ok: plain('A link is on its way if the address has an account.', json(ref('Status')), '202'),
      codes: [...BODY_CODES, ...STATUS_PERSON_CODES],
    }),
    operation('post', '/api/v1/auth/password-reset/confirm', {
      ...auth('Set a new password with a reset link', 'confirmPasswordReset', open()),
      description:
        'Every session of the person ends; they sign in with the new password. A link refused for a weak password still works for a better one.',
      requestBody: jsonBody(AUTH_BODY_SCHEMAS.confirmReset, { token: 'Jq3...', password: 'a new and long passphrase' }),
      ok: plain('The password is changed.', json(ref('Status'))),
      codes: [...BODY_CODES, 'invalid_token', ...STATUS_PERSON_CODES],
    }),
  ];
}

/** Passkeys, a passkey's sign-in, and accepting an invitation (which signs in too). */
function passkeyOperations(): RouteOperation[] {
  return [
    operation('post', '/api/v1/auth/passkeys/options', {
      ...auth('Start adding a passkey', 'passkeyRegistrationOptions', sessionSecurity()),
      description: 'Options for `startRegistration` (a discoverable credential). Needs a sign-in within the last 10 minutes.',
      ok: plain('The options; their challenge works once, for 5 minutes.', json(ref('WebAuthnOptions'))),
      codes: [...SESSION_CODES, 'reauthentication_required'],
    }),
    operation('post', '/api/v1/auth/passkeys', {
      ...auth('Add a passkey', 'addPasskey', sessionSecurity()),
      requestBody: jsonBody(AUTH_BODY_SCHEMAS.registerPasskey, {
        response: { id: '...', rawId: '...', type: 'public-key', response: {} },
        name: 'Work laptop',
      }),
      ok: plain('Added.', json(ref('Passkey')), '201'),
      codes: [...SESSION_CODES, ...BODY_CODES, 'reauthentication_required', 'already_exists'],
    }),
    operation('get', '/api/v1/auth/passkeys', {
      ...auth('List my passkeys', 'listPasskeys', sessionSecurity()),
      ok: plain('The passkeys.', json({ type: 'array', items: ref('Passkey') })),
      codes: SESSION_CODES,
    }),
    operation('patch', '/api/v1/auth/passkeys/{id}', {
      ...auth('Rename a passkey', 'renamePasskey', sessionSecurity()),
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'The credential id.' }],
      requestBody: jsonBody(AUTH_BODY_SCHEMAS.renamePasskey, { name: 'Phone' }),
      ok: plain('Renamed.', json(ref('Passkey'))),
      codes: [...SESSION_CODES, ...BODY_CODES, 'not_found'],
    }),
    operation('delete', '/api/v1/auth/passkeys/{id}', {
      ...auth('Remove a passkey', 'removePasskey', sessionSecurity()),
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'The credential id.' }],
      ok: plain('Removed.', undefined, '204'),
      codes: [...SESSION_CODES, 'reauthentication_required', 'not_found'],
    }),
    operation('post', '/api/v1/auth/passkey-signin/options', {
      ...auth('Start a passkey sign-in', 'passkeySigninOptions', open()),
      description: 'Options for `startAuthentication`: no address needed, the authenticator offers its passkey for this site.',
      ok: plain('The options; their challenge works once, for 5 minutes.', json(ref('WebAuthnOptions'))),
      codes: STATUS_PERSON_CODES,
    }),
    operation('post', '/api/v1/auth/passkey-signin', {
      ...auth('Sign in with a passkey', 'passkeySignin', open()),
      requestBody: jsonBody(AUTH_BODY_SCHEMAS.passkeySignin, { response: { id: '...', rawId: '...', type: 'public-key', response: {} } }),
      ok: signedInAnswer('Signed in.'),
      codes: [...BODY_CODES, 'invalid_credentials', 'forbidden', 'provider_required', ...STATUS_PERSON_CODES],
    }),
    operation('post', '/api/v1/auth/invitations/accept', {
      ...auth('Accept an invitation', 'acceptInvitation', open()),
      description:
        'Signed in as the invited address: joins the account and the session moves to it. Not signed in and new to the service: `password` (and `name`) make the sign-in, then it joins. ' +
        'Not signed in but known: 401 `unauthenticated` (sign in first, then accept). The link works once, for 7 days, until it is revoked (400 `invalid_token` after). ' +
        'When the account requires its members to sign in through an identity provider, the person joins and is then answered 403 `provider_required`: they sign in through it.',
      requestBody: jsonBody(AUTH_BODY_SCHEMAS.acceptInvitation, { token: 'Jq3...', password: 'correct horse battery staple', name: 'Ada' }),
      ok: signedInAnswer('Joined and signed in.'),
      codes: [...BODY_CODES, 'invalid_token', 'unauthenticated', 'forbidden', 'provider_required', ...STATUS_PERSON_CODES],
    }),
  ];
}
